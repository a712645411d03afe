/**
 * The things a Generate request asks for, read from its words: a request
 * written as a list ("Analyse sales.csv: revenue by region and by month, a
 * bar chart of the top products, and a short summary") becomes one plan
 * step per ask, in the user's own words, so that none is merged or left
 * out. A request with fewer than two asks returns null: the model plans it.
 *
 * Measured with Qwen2.5-Coder-1.5B on the Generate set (its plans in
 * words): "revenue by region and by month" became one `groupby(['region',
 * 'month'])` that printed nothing, and "the total rainfall of each year"
 * was left out of one plan and merged into a monthly grouping in another.
 * A 1.5B model writes a good cell for a named ask; it does not reliably
 * list the asks of a long sentence.
 */
import { asksByTime } from '../context/time-columns';
import { namedFiles } from './folder-files';

/** Steps of a plan read from a request, at most (each costs a model call or more). */
export const MAX_ASK_STEPS = 8;

/** Imperative verbs of data work: an ask that starts with one is said as is. */
const VERB =
  'load|read|open|import|compute|calculate|count|report|show|print|display|plot|draw|chart|list|find|' +
  'fit|compare|summari[sz]e|drop|remove|parse|convert|clean|merge|join|group|sort|rank|filter|add|' +
  'create|make|save|write|describe|explore|test|estimate|predict|train|check|strip|fill|replace|' +
  'rename|export|visuali[sz]e|analy[sz]e|profile|give|identify|detect|build|aggregate|pivot|' +
  'resample|normali[sz]e|scale|split|deduplicate|flag|mark|highlight|keep|select|extract|tabulate|' +
  'simulate|generate|sample|run|use|apply|forecast|cluster|classify|encode|impute|bin|determine|' +
  'measure|evaluate|quantify|track|map|annotate|label|inspect|look';

const STARTS_WITH_VERB = new RegExp(`^(?:${VERB})\\b`, 'i');

/** " and report …", " then plot …": a second ask in one clause. */
const AND_VERB = new RegExp(
  `\\s+(?:and\\s+then|and|then)\\s+(?=(?:${VERB})\\b)`,
  'gi'
);

/** Words that only join an ask to the one before it. */
const LEADING_JOINER =
  /^(?:and\s+then|and|then|also|plus|finally|with|as\s+well\s+as)\s+/i;

/** The summary Generate always writes; an ask for it is not a step. */
const SUMMARY_ONLY =
  /^(?:(?:write|give|add|print|show)\s+)?(?:a|an|the)?\s*(?:short|brief|final)?\s*summary(?:\s+of\s+(?:it|the\s+(?:results|findings|analysis)))?$|^summari[sz]e(?:\s+(?:it|the\s+(?:results|findings|analysis)))?$/i;

/** A clause that sets the scene ("Using traffic.csv (hourly visits)", "x.csv is a …"). */
const PREAMBLE =
  /^(?:(?:using|with|from|in|for|on|given|based\s+on)\s+\S+\.\w+\b|\S+\.\w+\s+(?:is|are|has|have|contains|holds)\b)/i;

/** An ask for a picture. */
const CHART =
  /\b(?:chart|plot|graph|histogram|heatmap|heat map|diagram|figure|scatter|boxplot|box plot|visuali[sz]ation)s?\b/i;

/** Loading the data: the plan's own first step says it. */
const LOAD = /^(?:load|read|open|import)\b/i;

/** What the folder's files tell the plan. */
export interface IRequestData {
  /** The data files of the notebook's folder. */
  files: ReadonlyArray<string>;
  /** Columns of those files whose values are dates kept as text (context/time-columns.ts). */
  dateColumns?: ReadonlyArray<string>;
  /** The column names of each previewed file (context/data-preview.ts `previewColumns`). */
  fileColumns?: ReadonlyArray<ReadonlyArray<string>>;
}

/**
 * The plan steps for `request`: a first step that loads the data files it
 * names (parsing their text dates when an ask goes by time), then one step
 * per ask, a column the request defines ("revenue (units × unit_price)")
 * added in a step of its own before the first ask that uses it; null when
 * it asks for fewer than two things (the model plans it).
 *
 * Measured: planned from the asks alone, the 1.5B grouped "the monthly
 * mean temperature" by the `date` text and summed `units` for "revenue
 * (units × unit_price) by region"; its own plans had said "parse the date
 * column" and "compute revenue" as steps of their own.
 */
export function stepsFromRequest(
  request: string,
  data: IRequestData
): string[] | null {
  const asks = requestAsks(request);
  if (asks.length < 2) {
    return null;
  }
  const named = namedFiles(request).filter(file => data.files.includes(file));
  const dates =
    named.length && asks.some(asksByTime) ? (data.dateColumns ?? []) : [];
  const load = named.length
    ? [
        `Load ${named.join(' and ')}` +
          (dates.length
            ? ` and parse ${dates.map(c => `\`${c}\``).join(' and ')} as dates`
            : '')
      ]
    : [];
  // A column is added where one file has every column of its formula (a
  // formula across files needs the join the asks make first).
  const columns = data.fileColumns ?? [];
  const added = definedColumns(request).filter(({ formula }) =>
    columns.some(file =>
      (formula.match(/[A-Za-z_]\w*/g) ?? []).every(name => file.includes(name))
    )
  );
  const steps = [...load];
  for (const ask of asks) {
    for (const column of added.filter(c => mentions(ask, c.name))) {
      steps.push(`Add a \`${column.name}\` column: ${column.formula}`);
      added.splice(added.indexOf(column), 1);
    }
    steps.push(ask);
  }
  return steps.slice(0, MAX_ASK_STEPS);
}

/** Whether `text` names `word` as a word. */
function mentions(text: string, word: string): boolean {
  return new RegExp(`\\b${word}\\b`, 'i').test(text);
}

/**
 * Columns a request defines by a formula in brackets after a name:
 * "revenue (units × unit_price)", "the margin ((unit_price − unit_cost) ×
 * units)".
 */
export function definedColumns(
  request: string
): Array<{ name: string; formula: string }> {
  const found: Array<{ name: string; formula: string }> = [];
  for (const match of request.matchAll(/\b([A-Za-z][\w]*)\s+\(/g)) {
    const open = match.index + match[0].length - 1;
    const formula = bracketed(request, open);
    if (
      formula &&
      /^[\w\s().]+$/.test(formula.replace(/[×*/+−-]/g, ' ')) &&
      /(?:\s[×*/+−-]\s|×)/.test(formula) &&
      !STOP_NAME.test(match[1]) &&
      !found.some(f => f.name === match[1].toLowerCase())
    ) {
      found.push({ name: match[1].toLowerCase(), formula: formula.trim() });
    }
  }
  return found;
}

/** Words before a bracket that do not name a column. */
const STOP_NAME =
  /^(?:and|or|of|by|per|the|a|an|in|on|with|as|is|are|to|for)$/i;

/** The text inside the bracket that opens at `open`, or null when it does not close. */
function bracketed(text: string, open: number): string | null {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') {
      depth++;
    } else if (text[i] === ')') {
      depth--;
      if (depth === 0) {
        return text.slice(open + 1, i);
      }
    }
  }
  return null;
}

/** The asks of a request, each as a step (a verb first), in its order. */
export function requestAsks(request: string): string[] {
  const text = request.replace(/[ \t]+/g, ' ').trim();
  const colon = topLevelColon(text);
  // "Analyse sales.csv: a, b and c": the head names the task, the body lists it.
  const body =
    colon >= 0 && text.slice(colon + 1).trim() ? text.slice(colon + 1) : text;
  const clauses = splitTopLevel(body)
    .flatMap(clause => clause.split(AND_VERB))
    .map(clause => tidy(clause))
    .filter(Boolean);
  const merged: string[] = [];
  let pending = '';
  for (const clause of clauses) {
    const joined = pending ? `${pending}, ${clause}` : clause;
    // "the count, mean and standard deviation per group": a short item of
    // a list belongs to the next one.
    if (wordCount(clause) < 3 && !STARTS_WITH_VERB.test(clause)) {
      pending = joined;
      continue;
    }
    pending = '';
    merged.push(joined);
  }
  if (pending) {
    merged.push(pending);
  }
  return merged
    .flatMap(distribute)
    .filter(
      ask => !PREAMBLE.test(ask) && !LOAD.test(ask) && !SUMMARY_ONLY.test(ask)
    )
    .flatMap(computeThenDraw);
}

/**
 * An ask as steps: "the mean visits by hour of day as a line chart" is
 * computed and printed, then drawn (measured: asked for both in one step,
 * the 1.5B plotted every hour against the overall mean, a ValueError, and
 * its rewrites did the same); any other ask is one step.
 */
function computeThenDraw(ask: string): string[] {
  const match =
    /^(?:show\s+|display\s+)?(.+?)\s+as\s+(an?\s+(?:[\w-]+\s+)?(?:chart|plot|graph|histogram|heatmap|boxplot))$/i.exec(
      ask
    );
  if (!match || STARTS_WITH_VERB.test(match[1])) {
    return [asStep(ask)];
  }
  return [asStep(match[1]), `Plot ${match[1]} as ${match[2]}`];
}

/** Clauses of `text` split at commas, semicolons, sentence ends and new lines outside brackets and quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  forEachTopLevel(text, i => {
    const c = text[i];
    if (
      c === ',' ||
      c === ';' ||
      c === '\n' ||
      // A sentence ends; "sales.csv" and "1.5" do not.
      (c === '.' && /\s/.test(text[i + 1] ?? ' '))
    ) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  });
  parts.push(text.slice(start));
  return parts;
}

/** Where the first colon that ends a clause is, outside brackets and quotes, or -1. */
function topLevelColon(text: string): number {
  let found = -1;
  forEachTopLevel(text, i => {
    if (text[i] === ':' && /\s/.test(text[i + 1] ?? ' ')) {
      found = i;
      return true;
    }
  });
  return found;
}

/** Calls `visit` with each index of `text` outside brackets and quotes, until it returns true. */
function forEachTopLevel(
  text: string,
  visit: (index: number) => boolean | void
): void {
  let depth = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      quote = c === quote ? '' : quote;
    } else if (c === '"' || c === '`') {
      quote = c;
    } else if ('([{'.includes(c)) {
      depth++;
    } else if (')]}'.includes(c)) {
      depth = Math.max(0, depth - 1);
    } else if (depth === 0 && visit(i)) {
      return;
    }
  }
}

/** A clause without list marks, joining words and a closing stop. */
function tidy(clause: string): string {
  let ask = clause
    .trim()
    .replace(/^(?:[-*•]|\d+[.)])\s+/, '')
    .replace(/[.!]+$/, '')
    .trim();
  for (;;) {
    const next = ask.replace(LEADING_JOINER, '');
    if (next === ask) {
      return ask;
    }
    ask = next;
  }
}

/** "revenue by region and by month": one ask per "by" (or "per"). */
function distribute(ask: string): string[] {
  const match =
    /^(.*?\b)(by|per|for each)\s+(.+?),?\s+and\s+(?:by|per|for each)\s+(.+)$/i.exec(
      ask
    );
  return match
    ? [
        `${match[1]}${match[2]} ${match[3]}`,
        `${match[1]}${match[2]} ${match[4]}`
      ]
    : [ask];
}

/**
 * An ask as a step: its verb first, capitalised. A noun phrase is shown
 * when it is a chart, computed and printed otherwise (asked to "show
 * revenue by region", the 1.5B drew a bar chart and printed nothing).
 */
function asStep(ask: string): string {
  const step = STARTS_WITH_VERB.test(ask)
    ? ask
    : CHART.test(ask)
      ? `Show ${ask}`
      : `Compute and print ${ask}`;
  return step[0].toUpperCase() + step.slice(1);
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
