"""Seeded data for the follow-up, Fix and Generate sets (eval/tasks/{followup,fix,generate}*.json).

Writes the built-in set's files (``generate.py``, same seed, so byte for byte the
same data), three more files for these sets, and ``expected.json``: the built-in
answers plus the answers of these sets (keys ``fu_*``, ``fix_*``, ``gen_*``),
computed here with pandas from the files as written, so a checker and its data
cannot disagree.

  * ``products.csv``: the five products (``name``, ``category``, ``unit_cost``):
    a join whose key is not named as in sales.csv (``name`` against ``product``);
  * ``invoices.csv``: amounts written with a thousands separator (``"1,234.50"``,
    read as text) and dates of issue;
  * ``stations.tsv``: a tab-separated table (a wrong ``sep`` reads one column).

Only ``random.Random(seed).random()`` draws (through ``generate.Rng``), a sequence
Python guarantees across versions. An answer that a tie would make ambiguous
(an arg-max with two maxima) stops the script: the question would have two
right answers.

Run: python eval/data/generate_sets.py --out DIR
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

SEED = 20261205


def _base() -> Any:
    """eval/data/generate.py, the built-in set's generator, as a module."""
    path = Path(__file__).with_name("generate.py")
    spec = importlib.util.spec_from_file_location("notebook_agent_eval_generate", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


base = _base()


def unique_max(series: pd.Series, what: str, smallest: bool = False) -> Any:
    """The index of the largest (or smallest) value; a tie is an error."""
    best = series.min() if smallest else series.max()
    winners = series[series == best]
    if len(winners) != 1:
        raise SystemExit(f"{what}: a tie between {list(winners.index)}")
    return winners.index[0]


def write_extra(out: Path, rng: Any) -> None:
    """products.csv, invoices.csv and stations.tsv."""
    products = pd.DataFrame(
        {
            "name": base.PRODUCTS,
            "category": ["tools", "tools", "garden", "home", "garden"],
            "unit_cost": [round(rng.uniform(1.0, 40.0), 2) for _ in base.PRODUCTS],
        }
    )
    products.to_csv(out / "products.csv", index=False)
    n = 150
    invoices = pd.DataFrame(
        {
            "invoice_id": [f"INV-{5000 + i}" for i in range(n)],
            "customer_id": [rng.integer(1, 200) for _ in range(n)],
            "issued": [
                (pd.Timestamp("2024-01-01") + pd.Timedelta(days=rng.integer(0, 365))).strftime("%Y-%m-%d")
                for _ in range(n)
            ],
            "amount": [f"{rng.uniform(50.0, 5000.0):,.2f}" for _ in range(n)],
        }
    )
    invoices.to_csv(out / "invoices.csv", index=False)
    names = ["Aalto", "Birch", "Cedar", "Dune", "Elm", "Fjord", "Gale", "Heath", "Iris", "Juniper", "Kestrel", "Larch"]
    stations = pd.DataFrame(
        {
            "station": names,
            "city": [rng.choice(base.CITIES) for _ in names],
            "elevation_m": [rng.integer(5, 2400) for _ in names],
            "lat": [round(rng.uniform(38.0, 62.0), 4) for _ in names],
            "lon": [round(rng.uniform(-9.0, 25.0), 4) for _ in names],
        }
    )
    stations.to_csv(out / "stations.tsv", index=False, sep="\t")


def _frames(out: Path) -> dict[str, pd.DataFrame]:
    """The files as a reader gets them (read back, not the frames written)."""
    sales = pd.read_csv(out / "sales.csv")
    sales["revenue"] = sales["units"] * sales["unit_price"]
    sales["date"] = pd.to_datetime(sales["date"])
    weather = pd.read_csv(out / "weather.csv", parse_dates=["date"])
    traffic = pd.read_csv(out / "traffic.csv", parse_dates=["timestamp"])
    invoices = pd.read_csv(out / "invoices.csv", thousands=",")
    invoices["issued"] = pd.to_datetime(invoices["issued"])
    return {
        "sales": sales,
        "customers": pd.read_csv(out / "customers.csv"),
        "weather": weather,
        "traffic": traffic,
        "experiment": pd.read_csv(out / "experiment.csv"),
        "products": pd.read_csv(out / "products.csv"),
        "invoices": invoices,
        "stations": pd.read_csv(out / "stations.tsv", sep="\t"),
        "dirty": pd.read_csv(out / "sales_dirty.csv"),
        "eu": pd.read_csv(out / "weather_eu.csv", sep=";", decimal=","),
    }


def followup_answers(f: dict[str, pd.DataFrame], built_in: dict[str, Any]) -> dict[str, Any]:
    """Answers of eval/tasks/followup.json and followup-holdout.json."""
    s, c, w, t, e = f["sales"], f["customers"], f["weather"], f["traffic"], f["experiment"]
    a: dict[str, Any] = {}
    # fu-top-region
    region = unique_max(s.groupby("region")["revenue"].sum(), "top region")
    in_region = s[s["region"] == region]
    a["fu_top_region_orders"] = len(in_region)
    monthly = in_region.set_index("date")["revenue"].resample("MS").sum()
    a["fu_top_region_best_month"] = unique_max(monthly, "region's best month").strftime("%Y-%m")
    # fu-best-product
    product = unique_max(s.groupby("product")["units"].sum(), "top product by units")
    a["fu_top_units_product"] = product
    big = s[(s["product"] == product) & (s["units"] > 15)]
    a["fu_big_orders"] = len(big)
    a["fu_big_orders_mean_price"] = round(float(big["unit_price"].mean()), 2)
    a["fu_big_orders_revenue"] = round(float(big["revenue"].sum()), 2)
    # fu-city-orders
    joined = s.merge(c, on="customer_id")
    city = unique_max(joined["city"].value_counts(), "top city")
    assert city == built_in["top_city_orders"]
    city_customers = c[c["customer_id"].isin(joined[joined["city"] == city]["customer_id"])]
    a["fu_city_customers"] = len(city_customers)
    a["fu_city_top_segment"] = unique_max(city_customers["segment"].value_counts(), "segment of the city")
    # fu-cold-month
    w24 = w[w["date"].dt.year == 2024]
    a["fu_mean_temp_2024"] = round(float(w24["temp_c"].mean()), 2)
    by_month = w24.set_index("date")["temp_c"].resample("MS").mean()
    coldest = unique_max(by_month, "coldest month of 2024", smallest=True)
    a["fu_coldest_month_2024"] = coldest.strftime("%Y-%m")
    in_month = w24[w24["date"].dt.month == coldest.month]
    a["fu_coldest_month_rainy_days"] = int((in_month["rain_mm"] > 5).sum())
    a["fu_coldest_month_rain"] = round(float(in_month["rain_mm"].sum()), 1)
    # fu-quiet-day
    a["fu_total_visits"] = int(t["visits"].sum())
    daily = t.set_index("timestamp")["visits"].resample("D").sum()
    quiet = unique_max(daily, "quietest day", smallest=True)
    a["fu_quietest_day"] = quiet.strftime("%Y-%m-%d")
    that_day = t[t["timestamp"].dt.normalize() == quiet]
    a["fu_quietest_day_peak_hour"] = int(
        unique_max(that_day.set_index(that_day["timestamp"].dt.hour)["visits"], "peak hour of the quiet day")
    )
    # fu-groups
    treat, ctrl = e[e["group"] == "treatment"], e[e["group"] == "control"]
    a["fu_treatment_n"] = len(treat)
    a["fu_treatment_mean"] = round(float(treat["score"].mean()), 3)
    a["fu_control_mean"] = round(float(ctrl["score"].mean()), 3)
    a["fu_mean_diff"] = round(float(treat["score"].mean() - ctrl["score"].mean()), 3)
    # fu-line-fit
    slope, intercept = base._fit(e["x"].tolist(), e["y"].tolist())
    a["fu_pred_40"] = round(slope * 40 + intercept, 2)
    a["fu_points_above"] = int((e["y"] > slope * e["x"] + intercept).sum())
    # fu-dirty-export
    d = f["dirty"]
    a["fu_dirty_rows"] = len(d)
    a["fu_dirty_dups"] = int(d.duplicated().sum())
    dedup = d.drop_duplicates()
    a["fu_dirty_missing_units"] = int(dedup["units"].isna().sum())
    kept = dedup.dropna(subset=["units"])
    a["fu_dirty_north_orders"] = int((kept["region"].str.strip().str.title() == "North").sum())
    # fu-recent-signups
    recent = c[c["signup_year"] >= 2020]
    a["fu_recent_signups"] = len(recent)
    recent_city = unique_max(recent["city"].value_counts(), "city of recent signups")
    a["fu_recent_top_city"] = recent_city
    everyone = c[c["city"] == recent_city]
    a["fu_recent_city_pct"] = round(100 * float((everyone["signup_year"] >= 2020).mean()), 1)
    # fu-weekday
    weekday = s["date"].dt.day_name()
    top_day = unique_max(weekday.value_counts(), "top weekday")
    on_day = s[weekday == top_day]
    a["fu_top_weekday"] = top_day
    a["fu_top_weekday_orders"] = len(on_day)
    a["fu_top_weekday_revenue"] = round(float(on_day["revenue"].sum()), 2)
    a["fu_top_weekday_month"] = unique_max(
        on_day.set_index("date")["order_id"].resample("MS").count(), "month of the weekday"
    ).strftime("%Y-%m")
    # held-out: fu-ho-beta
    beta = s[s["product"] == "beta"]
    a["fu_ho_beta_orders"] = len(beta)
    a["fu_ho_beta_west"] = int((beta["region"] == "West").sum())
    a["fu_ho_beta_west_units"] = int(beta[beta["region"] == "West"]["units"].sum())
    # held-out: fu-ho-wettest-day
    w23 = w[w["date"].dt.year == 2023].set_index("date")
    wettest = unique_max(w23["rain_mm"], "wettest day of 2023")
    a["fu_ho_wettest_day"] = wettest.strftime("%Y-%m-%d")
    a["fu_ho_wettest_day_temp"] = float(w23.loc[wettest, "temp_c"])
    a["fu_ho_wettest_month_rain_days"] = int((w23[w23.index.month == wettest.month]["rain_mm"] > 0).sum())
    # held-out: fu-ho-business
    business = c[c["segment"] == "business"]
    a["fu_ho_business_customers"] = len(business)
    orders = joined[joined["segment"] == "business"]
    a["fu_ho_business_orders"] = len(orders)
    a["fu_ho_business_mean_units"] = round(float(orders["units"].mean()), 3)
    return a


def fix_answers(f: dict[str, pd.DataFrame], out: Path) -> dict[str, Any]:
    """Answers of eval/tasks/fix.json and fix-holdout.json."""
    s, c, w, e = f["sales"], f["customers"], f["weather"], f["experiment"]
    joined = s.merge(c, on="customer_id")
    by_product = s.groupby("product")["revenue"].sum()
    pivot = s.pivot_table(index="region", columns="product", values="units", aggfunc="sum")
    east = s[s["region"] == "East"]
    region_units = s.groupby("region")["units"].sum()
    slope_pred = 3.2 * e["x"] + 7.5
    export = pd.read_csv(out / "experiment_export.csv", skiprows=2)
    score = e["score"]
    stations = f["stations"]
    return {
        "fix_units_by_region": {k: int(v) for k, v in region_units.items()},
        "fix_mean_price": float(s["unit_price"].mean()),
        "fix_top_revenue_product": unique_max(by_product, "top product by revenue"),
        "fix_avg_units": float(s["units"].mean()),
        "fix_customers_per_segment": {k: int(v) for k, v in c["segment"].value_counts().items()},
        "fix_orders_from_july": int((s["date"] >= "2024-07-01").sum()),
        "fix_total_units": int(s["units"].sum()),
        "fix_avg_units_by_product": {k: float(v) for k, v in s.groupby("product")["units"].mean().items()},
        "fix_top5_prices": [float(v) for v in s["unit_price"].sort_values(ascending=False).head(5)],
        "fix_total_invoiced": float(f["invoices"]["amount"].sum()),
        "fix_orders_per_month": [int(v) for v in s.groupby(s["date"].dt.month).size()],
        "fix_max_monthly_temp": float(w.set_index("date")["temp_c"].resample("MS").mean().max()),
        "fix_orders_by_segment": {k: int(v) for k, v in joined.groupby("segment").size().items()},
        "fix_units_by_category": {
            k: int(v)
            for k, v in s.merge(f["products"], left_on="product", right_on="name")
            .groupby("category")["units"]
            .sum()
            .items()
        },
        "fix_units_plus_3": int(s["units"].sum()) + 3,
        "fix_beta_east_units": int(pivot.loc["East", "beta"]),
        "fix_east_means": {"units": float(east["units"].mean()), "unit_price": float(east["unit_price"].mean())},
        "fix_eu_mean_temp": float(f["eu"]["temp_c"].mean()),
        "fix_export_mean_score": float(export["score"].mean()),
        "fix_region_mean_price_sum": float(s.groupby("region")["unit_price"].transform("mean").sum()),
        "fix_pred_sum": float(slope_pred.sum()),
        "fix_unit_share": {k: float(v) for k, v in (region_units / region_units.sum()).items()},
        "fix_mean_revenue": float(s["revenue"].mean()),
        # held-out
        "fix_ho_rms_score": math.sqrt(float((score**2).mean())),
        "fix_ho_highest_station": str(stations.loc[unique_max(stations["elevation_m"], "highest station"), "station"]),
        "fix_ho_score_mad": float((score - score.mean()).abs().mean()),
        "fix_ho_orders_per_city": {k: int(v) for k, v in joined["city"].value_counts().items()},
        "fix_ho_rainy_days": int((w["rain_mm"] > 5).sum()),
        "fix_ho_mean_invoice": float(f["invoices"]["amount"].mean()),
    }


def generate_answers(f: dict[str, pd.DataFrame], dirty_clean: pd.DataFrame) -> dict[str, Any]:
    """Values the notebooks of eval/tasks/generate*.json must print."""
    s, c, w, t, e = f["sales"], f["customers"], f["weather"], f["traffic"], f["experiment"]
    joined = s.merge(c, on="customer_id")
    hourly = t.groupby(t["timestamp"].dt.hour)["visits"].mean()
    daily = t.set_index("timestamp")["visits"].resample("D").sum()
    merged = s.merge(f["products"], left_on="product", right_on="name")
    merged["margin"] = (merged["unit_price"] - merged["unit_cost"]) * merged["units"]
    dirty = dirty_clean.copy()
    dirty["revenue"] = dirty["units"] * dirty["unit_price"]
    by_customer = s.groupby("customer_id")["revenue"].sum().sort_values(ascending=False)
    if by_customer.iloc[4] == by_customer.iloc[5]:
        raise SystemExit("top 5 customers: a tie at the fifth place")
    invoices = f["invoices"]

    def values(series: pd.Series, digits: int | None = 2) -> dict[str, Any]:
        return {str(k): (round(float(v), digits) if digits is not None else int(v)) for k, v in series.items()}

    return {
        "gen_region_revenue": values(s.groupby("region")["revenue"].sum()),
        "gen_rain_by_year": values(w.groupby(w["date"].dt.year)["rain_mm"].sum(), 1),
        "gen_busiest_day_visits": int(daily.max()),
        "gen_peak_hour_mean": round(float(hourly.max()), 2),
        "gen_group_score_mean": values(e.groupby("group")["score"].mean(), 3),
        "gen_group_score_std": values(e.groupby("group")["score"].std(), 3),
        "gen_segment_revenue": values(joined.groupby("segment")["revenue"].sum()),
        "gen_dirty_region_revenue": values(dirty.groupby("region")["revenue"].sum()),
        "gen_eu_total_rain": round(float(f["eu"]["rain_mm"].sum()), 1),
        "gen_customers_per_segment": values(c["segment"].value_counts(), None),
        "gen_customers_per_city": values(c["city"].value_counts(), None),
        "gen_category_units": values(merged.groupby("category")["units"].sum(), None),
        "gen_category_margin": values(merged.groupby("category")["margin"].sum()),
        "gen_ho_top5_customer_revenue": values(by_customer.head(5)),
        "gen_ho_total_invoiced": round(float(invoices["amount"].sum()), 2),
        "gen_ho_mean_invoice": round(float(invoices["amount"].mean()), 2),
    }


def generate(out: Path) -> dict[str, Any]:
    """Write every file into ``out``; return the expected answers."""
    answers = base.generate(out, 20261130)
    rng = base.Rng(SEED)
    write_extra(out, rng)
    frames = _frames(out)
    clean = _clean_dirty(out)
    # The same cleaning as the built-in set's (generate.py cleans the rows it writes).
    if len(clean) != answers["dirty_clean_rows"]:
        raise SystemExit(f"sales_dirty.csv cleans to {len(clean)} rows, not {answers['dirty_clean_rows']}")
    answers.update(followup_answers(frames, answers))
    answers.update(fix_answers(frames, out))
    answers.update(generate_answers(frames, clean))
    answers["_meta"]["sets_seed"] = SEED
    (out / "expected.json").write_text(json.dumps(answers, indent=1))
    return answers


def _clean_dirty(out: Path) -> pd.DataFrame:
    """sales_dirty.csv cleaned as the built-in set's cleaning tasks say."""
    d = pd.read_csv(out / "sales_dirty.csv", dtype={"unit_price": str})
    d["region"] = d["region"].str.strip().str.title()
    d["unit_price"] = d["unit_price"].str.replace("$", "").str.replace(",", ".").astype(float)
    d["units"] = pd.to_numeric(d["units"], errors="coerce")
    return d.dropna(subset=["units"]).drop_duplicates()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args()
    answers = generate(args.out)
    print(json.dumps({"out": str(args.out), "answers": len(answers) - 1}))


if __name__ == "__main__":
    main()
