"""Seeded data for the built-in evaluation tasks (eval/tasks/builtin.json).

Writes the data files into ``--out`` and ``expected.json``: the answer of
every task that has one, computed here from the same data with pandas, so
a task's checker and its data can never disagree.

Only ``random.Random(seed).random()`` is used for randomness: Python
guarantees that sequence for a given seed across versions, so the files
(and the expected answers) are the same on every machine. Parquet copies
are written when pyarrow is importable (``expected.json`` says whether).

Run: python eval/data/generate.py --out DIR [--seed 20261130]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import math
import random
from pathlib import Path
from typing import Any

import pandas as pd

REGIONS = ["North", "South", "East", "West"]
PRODUCTS = ["alpha", "beta", "gamma", "delta", "omega"]
CITIES = ["Lyon", "Oslo", "Porto", "Quito", "Riga", "Turin"]


class Rng:
    """Uniform, integer, choice and normal draws built on random() alone."""

    def __init__(self, seed: int) -> None:
        self._r = random.Random(seed)

    def uniform(self, lo: float, hi: float) -> float:
        return lo + (hi - lo) * self._r.random()

    def integer(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        return lo + min(hi - lo, int(self._r.random() * (hi - lo + 1)))

    def choice(self, items: list[Any]) -> Any:
        return items[self.integer(0, len(items) - 1)]

    def normal(self, mean: float, sd: float) -> float:
        """Box-Muller."""
        u1 = max(self._r.random(), 1e-12)
        u2 = self._r.random()
        return mean + sd * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def make_frames(rng: Rng) -> dict[str, pd.DataFrame]:
    """Every clean table, by file stem."""
    customers = pd.DataFrame(
        {
            "customer_id": list(range(1, 201)),
            "city": [rng.choice(CITIES) for _ in range(200)],
            "segment": [rng.choice(["retail", "business", "public"]) for _ in range(200)],
            "signup_year": [rng.integer(2015, 2024) for _ in range(200)],
        }
    )
    n = 2000
    sales = pd.DataFrame(
        {
            "order_id": list(range(10001, 10001 + n)),
            "date": [
                (pd.Timestamp("2024-01-01") + pd.Timedelta(days=rng.integer(0, 365))).strftime("%Y-%m-%d")
                for _ in range(n)
            ],
            "region": [rng.choice(REGIONS) for _ in range(n)],
            "product": [rng.choice(PRODUCTS) for _ in range(n)],
            "customer_id": [rng.integer(1, 200) for _ in range(n)],
            "units": [rng.integer(1, 20) for _ in range(n)],
            "unit_price": [round(rng.uniform(2.0, 120.0), 2) for _ in range(n)],
        }
    )
    days = pd.date_range("2023-01-01", "2024-12-31", freq="D")
    temps = [
        round(12 + 10 * math.sin(2 * math.pi * (d.day_of_year - 100) / 365.25) + rng.normal(0, 2.5), 2) for d in days
    ]
    weather = pd.DataFrame({"date": days.strftime("%Y-%m-%d"), "temp_c": temps})
    weather["rain_mm"] = [round(max(0.0, rng.normal(1.5, 3.0)), 1) for _ in range(len(days))]
    hours = pd.date_range("2024-03-01", periods=24 * 28, freq="h")
    traffic = pd.DataFrame(
        {
            "timestamp": hours.strftime("%Y-%m-%d %H:%M:%S"),
            "visits": [
                max(0, round(200 + 120 * math.sin(2 * math.pi * (h.hour - 6) / 24) + rng.normal(0, 25))) for h in hours
            ],
        }
    )
    m = 300
    x = [round(rng.uniform(0, 50), 3) for _ in range(m)]
    experiment = pd.DataFrame(
        {
            "x": x,
            "y": [round(3.2 * xi + 7.5 + rng.normal(0, 6.0), 3) for xi in x],
            "group": [rng.choice(["control", "treatment"]) for _ in range(m)],
        }
    )
    experiment["score"] = [round(rng.normal(70 if g == "control" else 74, 8), 2) for g in experiment["group"]]
    return {
        "customers": customers,
        "sales": sales,
        "weather": weather,
        "traffic": traffic,
        "experiment": experiment,
    }


def write_dirty(out: Path, rng: Rng, sales: pd.DataFrame) -> pd.DataFrame:
    """A messy export of the first 400 sales and its cleaned form.

    Mixed-case, padded region names; prices with a currency sign and a comma
    decimal separator; some units missing (blank or "n/a"); 25 duplicated
    rows. Cleaning: strip and title-case, parse prices, drop rows without
    units, drop exact duplicates.
    """
    base = sales.head(400).copy()
    rows = []
    for rec in base.to_dict("records"):
        region = rec["region"]
        region = rng.choice([region, region.upper(), region.lower(), f"  {region} "])
        price = f"${rec['unit_price']:.2f}".replace(".", ",") if rng.uniform(0, 1) < 0.5 else f"{rec['unit_price']:.2f}"
        units: Any = rec["units"]
        if rng.uniform(0, 1) < 0.06:
            units = rng.choice(["", "n/a"])
        rows.append([rec["order_id"], rec["date"], region, rec["product"], units, price])
    for _ in range(25):
        rows.append(list(rows[rng.integer(0, 399)]))
    with open(out / "sales_dirty.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["order_id", "date", "region", "product", "units", "unit_price"])
        writer.writerows(rows)
    clean = pd.DataFrame(rows, columns=["order_id", "date", "region", "product", "units", "unit_price"])
    clean["region"] = clean["region"].str.strip().str.title()
    clean["unit_price"] = clean["unit_price"].astype(str).str.replace("$", "").str.replace(",", ".").astype(float)
    clean["units"] = pd.to_numeric(clean["units"], errors="coerce")
    clean = clean.dropna(subset=["units"]).drop_duplicates()
    return clean


def write_tricky(out: Path, frames: dict[str, pd.DataFrame]) -> None:
    """Files that fail on the first naive read, for the error-recovery tasks."""
    weather = frames["weather"].head(120)
    # Semicolons and decimal commas (a European spreadsheet export).
    text = weather.to_csv(sep=";", index=False).replace(".", ",")
    (out / "weather_eu.csv").write_text(text)
    # Latin-1 city names.
    cust = frames["customers"].copy()
    cust["city"] = cust["city"].replace({"Porto": "Pôrto", "Turin": "Torinò"})
    cust.to_csv(out / "customers_latin1.csv", index=False, encoding="latin-1")
    # Two lines of preamble before the header.
    lines = "Exported by LabSys v2\nUnits: mm\n" + frames["experiment"].to_csv(index=False)
    (out / "experiment_export.csv").write_text(lines)


def expected_answers(frames: dict[str, pd.DataFrame], dirty_clean: pd.DataFrame, out: Path) -> dict[str, Any]:
    s = frames["sales"].copy()
    s["revenue"] = s["units"] * s["unit_price"]
    s["date"] = pd.to_datetime(s["date"])
    c = frames["customers"]
    w = frames["weather"].copy()
    w["date"] = pd.to_datetime(w["date"])
    t = frames["traffic"].copy()
    t["timestamp"] = pd.to_datetime(t["timestamp"])
    e = frames["experiment"]
    joined = s.merge(c, on="customer_id")
    by_region = s.groupby("region")["revenue"].sum()
    monthly = s.set_index("date")["revenue"].resample("MS").sum()
    w_monthly = w.set_index("date")["temp_c"].resample("MS").mean()
    slope, intercept = _fit(e["x"].tolist(), e["y"].tolist())
    control = e[e["group"] == "control"]["score"]
    treatment = e[e["group"] == "treatment"]["score"]
    welch_t = (treatment.mean() - control.mean()) / math.sqrt(
        treatment.var() / len(treatment) + control.var() / len(control)
    )
    dirty_clean = dirty_clean.copy()
    dirty_clean["revenue"] = dirty_clean["units"] * dirty_clean["unit_price"]
    eu = pd.read_csv(out / "weather_eu.csv", sep=";", decimal=",")
    latin = pd.read_csv(out / "customers_latin1.csv", encoding="latin-1")
    rolling = w.set_index("date")["temp_c"].rolling(7).mean()
    return {
        "total_revenue": round(float(s["revenue"].sum()), 2),
        "order_count": len(s),
        "top_region": str(by_region.idxmax()),
        "top_region_revenue": round(float(by_region.max()), 2),
        "mean_units_beta": round(float(s[s["product"] == "beta"]["units"].mean()), 4),
        "median_unit_price": round(float(s["unit_price"].median()), 2),
        "distinct_customers": int(s["customer_id"].nunique()),
        "max_units_order": int(s.loc[s["units"].idxmax(), "order_id"]),
        "revenue_business": round(float(joined[joined["segment"] == "business"]["revenue"].sum()), 2),
        "top_city_orders": str(joined["city"].value_counts().idxmax()),
        "customers_over_14_orders": int((s["customer_id"].value_counts() > 14).sum()),
        "revenue_signup_2020": round(float(joined[joined["signup_year"] == 2020]["revenue"].sum()), 2),
        "best_month": monthly.idxmax().strftime("%Y-%m"),
        "best_month_revenue": round(float(monthly.max()), 2),
        "warmest_month_2024": w_monthly[w_monthly.index.year == 2024].idxmax().strftime("%Y-%m"),
        "rainy_days_2023": int((w[w["date"].dt.year == 2023]["rain_mm"] > 5).sum()),
        "peak_hour": int(t.groupby(t["timestamp"].dt.hour)["visits"].mean().idxmax()),
        "busiest_day": t.set_index("timestamp")["visits"].resample("D").sum().idxmax().strftime("%Y-%m-%d"),
        "max_rolling7_temp": round(float(rolling.max()), 3),
        "slope": round(slope, 4),
        "intercept": round(intercept, 4),
        "corr_xy": round(float(e["x"].corr(e["y"])), 4),
        "welch_t": round(float(welch_t), 4),
        "score_std": round(float(e["score"].std()), 4),
        "dirty_clean_rows": len(dirty_clean),
        "dirty_clean_revenue": round(float(dirty_clean["revenue"].sum()), 2),
        "dirty_north_revenue": round(float(dirty_clean[dirty_clean["region"] == "North"]["revenue"].sum()), 2),
        "eu_mean_temp": round(float(eu["temp_c"].mean()), 3),
        "latin_torino_customers": int((latin["city"] == "Torinò").sum()),
        "export_mean_score": round(float(e["score"].mean()), 4),
        **holdout_answers(s, c, w, t, e, dirty_clean, eu, latin),
    }


def holdout_answers(
    s: pd.DataFrame,
    c: pd.DataFrame,
    w: pd.DataFrame,
    t: pd.DataFrame,
    e: pd.DataFrame,
    dirty_clean: pd.DataFrame,
    eu: pd.DataFrame,
    latin: pd.DataFrame,
) -> dict[str, Any]:
    """Answers of eval/tasks/holdout.json: other questions over the same files.

    Written after the small-model changes of 2026-12-03 and never used to tune
    them: a check that what helps on the built-in tasks is not fitted to them.
    """
    w_2023 = w[w["date"].dt.year == 2023].set_index("date")["temp_c"].resample("MS").mean()
    retail = s.merge(c, on="customer_id")
    treatment = e[e["group"] == "treatment"]
    return {
        "ho_units_east": int(s[s["region"] == "East"]["units"].sum()),
        "ho_mean_price_omega": round(float(s[s["product"] == "omega"]["unit_price"].mean()), 2),
        "ho_riga_customers": int((c["city"] == "Riga").sum()),
        "ho_retail_orders": int((retail["segment"] == "retail").sum()),
        "ho_coldest_month_2023": w_2023.idxmin().strftime("%Y-%m"),
        "ho_rain_2024": round(float(w[w["date"].dt.year == 2024]["rain_mm"].sum()), 1),
        "ho_quiet_hour": int(t.groupby(t["timestamp"].dt.hour)["visits"].mean().idxmin()),
        "ho_mean_y_treatment": round(float(treatment["y"].mean()), 3),
        "ho_eu_max_rain": round(float(eu["rain_mm"].max()), 1),
        "ho_export_max_x": round(float(e["x"].max()), 3),
        "ho_latin_porto": int((latin["city"] == "Pôrto").sum()),
        "ho_dirty_units": int(dirty_clean["units"].sum()),
    }


def _fit(x: list[float], y: list[float]) -> tuple[float, float]:
    """Least-squares line, by the normal equations."""
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    slope = sxy / sxx
    return float(slope), float(my - slope * mx)


def generate(out: Path, seed: int) -> dict[str, Any]:
    """Write every file into ``out``; return the expected answers."""
    out.mkdir(parents=True, exist_ok=True)
    rng = Rng(seed)
    frames = make_frames(rng)
    for name, frame in frames.items():
        frame.to_csv(out / f"{name}.csv", index=False)
    parquet = importlib.util.find_spec("pyarrow") is not None
    if parquet:
        for name, frame in frames.items():
            frame.to_parquet(out / f"{name}.parquet", index=False)
    dirty_clean = write_dirty(out, rng, frames["sales"])
    write_tricky(out, frames)
    answers = expected_answers(frames, dirty_clean, out)
    answers["_meta"] = {"seed": seed, "parquet": parquet}
    (out / "expected.json").write_text(json.dumps(answers, indent=1))
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    answers = generate(args.out, args.seed)
    print(json.dumps({"out": str(args.out), "answers": len(answers) - 1, **answers["_meta"]}))


if __name__ == "__main__":
    main()
