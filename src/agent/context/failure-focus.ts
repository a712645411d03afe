/**
 * What a small model needs from a failed run, in one sentence: the
 * exception, the line of its own code that led there, and for the usual
 * data-reading errors the usual way out.
 *
 * Measured with Qwen2.5-Coder-1.5B: shown a whole error output followed by
 * "reply with the corrected code", it sent the same code back (3 of the 26
 * failures of one run over the built-in tasks ended that way, and a fourth
 * kept the failing name). The error output stays in the conversation as it
 * is; this is said under it.
 */

/** The failure of an error observation, as the model is told it. */
export interface IFailureFocus {
  /** `Ename: evalue`, cut to one line. */
  error: string;
  /** Line number and text of the model's own code that failed, when shown. */
  line?: { number: number; text: string };
  /** A short hint for a well-known cause, or ''. */
  hint: string;
}

/** Longest exception or code line quoted back. */
const MAX_QUOTE = 160;

const EXCEPTION_LINE =
  /^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Warning)\b.*)$/m;
// IPython's frame of a cell, and the line it marks with an arrow.
const CELL_FRAME = /^\s*(?:Cell In\s*\[|Input In\s*\[)/;
const ARROW_LINE = /^\s*-+>\s*(\d+)\s(.*)$/;

/**
 * A NameError under a new block (the text protocol's answers: each block is
 * a new cell, the data may not be loaded) and under a cell being fixed
 * (the code above it ran: the name is misspelt or never defined).
 */
const NEW_BLOCK_NAME_HINT =
  'Each block must define what it uses: load the data again in the same block.';
const FIXED_CELL_NAME_HINT =
  'Use a name the code above or the kernel defines (check the spelling), or define it in this cell.';

/** Where the code that failed is rewritten: a new block, or the same cell (a fix). */
export type FailureContext = 'new-block' | 'same-cell';

/**
 * Hints for causes a data scientist knows by heart; each names the fix, not
 * the data, so it holds for any file. Checked in order.
 */
const HINTS: ReadonlyArray<[RegExp, string]> = [
  [
    /^UnicodeDecodeError/,
    "The file is not UTF-8: read it with encoding='latin-1'."
  ],
  [
    /^(?:pandas\.errors\.)?ParserError|Error tokenizing data/,
    'The file has lines before its header or another layout: look at its first lines above and use skiprows=, sep= or comment= to match them.'
  ],
  [
    /^KeyError/,
    'That name is not there: use a name that exists (print df.columns, or read the columns listed above), or create that column first. Only when the frame has a single column was the file read with the wrong separator: then check sep= against its first lines.'
  ],
  [
    /^FileNotFoundError/,
    "No such file: print os.listdir('.') and use a name from it."
  ],
  [/^NameError/, NEW_BLOCK_NAME_HINT],
  // Measured: Qwen2.5-Coder-1.5B sent the same block again after each of
  // these (dates read as text; a made-up `pd.stats`).
  [
    /Can only use \.dt accessor with datetimelike values/,
    "The column holds text, not dates: convert it first with pd.to_datetime(df['column'])."
  ],
  [
    /Only valid with DatetimeIndex|DatetimeIndex, TimedeltaIndex or PeriodIndex/,
    "The index holds text, not dates: convert the column with pd.to_datetime(df['column']) before set_index, then resample."
  ],
  // Measured in the walk (Generate, Qwen2.5-Coder-1.5B): a month column made
  // with `.dt.to_period('M')` got `.dt.to_period('M')` again in the chart's
  // cell, three tries and two repairs alike; matplotlib plots no Period.
  [
    /'PeriodProperties' object has no attribute 'to_period'/,
    'The column holds periods already (to_period ran before): use it as it is, or as text with .astype(str) to plot it.'
  ],
  [
    /not 'Period'|dtypes of parameters x \(object\) and width/,
    "Matplotlib cannot draw these x values (Periods, for one): pass them as text: s.index.astype(str) when they are the index, df['month'].astype(str) when a column."
  ],
  // A European file: decimal commas ('-0,35'), usually with sep=';'.
  [
    /could not convert string to float: '-?\d+,\d+'|Unable to parse string "-?\d+,\d+"/,
    "The file writes decimals with a comma: read it with decimal=',' (and sep=';' when its first lines use semicolons)."
  ],
  [
    /does not support operation '\w+'|Cannot perform reduction '\w+' with string dtype|agg function failed \[how->\w+,dtype->object\]/,
    'Some columns hold text: compute on the numeric columns only (select them first, or pass numeric_only=True).'
  ],
  [
    /^ValueError: Length of values \(\d+\) does not match length of index \(\d+\)/,
    "The values are one per group, not one per row: bring them back to the rows with df['group'].map(per_group) or groupby(...)['column'].transform('mean')."
  ],
  [
    /could not convert string to float|Unable to parse string|invalid literal for int\(\)|unsupported operand type\(s\).*'str'/,
    "A column holds text where numbers are expected: convert it with pd.to_numeric(df['column'], errors='coerce') (removing symbols such as $ or , first) before computing."
  ],
  [
    /^AttributeError: module '[\w.]+' has no attribute/,
    'That function does not exist: write it with functions that do (numpy, scipy.stats).'
  ]
];

/**
 * The imports behind the short names data code uses. Measured with
 * Qwen2.5-Coder-0.5B: it wrote `pd.read_csv` without `import pandas as pd`
 * and, told to "load the data again", sent the same block until the run
 * ended.
 */
const MODULE_ALIASES: Readonly<Record<string, string>> = {
  pd: 'import pandas as pd',
  np: 'import numpy as np',
  plt: 'import matplotlib.pyplot as plt',
  sns: 'import seaborn as sns'
};

/**
 * Methods pandas 2.0 and 3.0 removed, and what replaces them (pandas'
 * release notes). Measured: Qwen2.5-Coder-1.5B swapped `swapaxes(0, 1)`
 * and `swapaxes(1, 0)` three times; the error only says the attribute is
 * not there.
 */
const REMOVED_PANDAS: Readonly<Record<string, string>> = {
  append: 'pd.concat([df, other])',
  iteritems: '.items()',
  swapaxes: '.T (the transpose)',
  applymap: '.map(func)',
  lookup: '.loc or .to_numpy() indexing',
  is_monotonic: '.is_monotonic_increasing',
  bool: '.item()',
  ravel: '.to_numpy().ravel()',
  pad: '.ffill()',
  backfill: '.bfill()'
};

/** The hint for a method pandas removed, or ''. */
function removedHint(exception: string): string {
  const name =
    /^AttributeError: '(?:DataFrame|Series|DataFrameGroupBy|SeriesGroupBy|Index)' object has no attribute '(\w+)'/.exec(
      exception
    )?.[1];
  const replacement = name ? REMOVED_PANDAS[name] : undefined;
  return replacement
    ? `pandas removed ${name}: use ${replacement} instead.`
    : '';
}

/** Packages whose import name is not their install name. */
const PACKAGE_NAMES: Readonly<Record<string, string>> = {
  sklearn: 'scikit-learn',
  cv2: 'opencv-python',
  PIL: 'pillow',
  yaml: 'pyyaml',
  bs4: 'beautifulsoup4',
  dateutil: 'python-dateutil'
};

/**
 * The hint for a module that is not installed: the install, in a block of
 * its own (the user approves it like any code). A small model otherwise
 * sends the same import again (measured: a plot step failed five times on
 * `import matplotlib.pyplot` in a kernel without matplotlib).
 */
function installHint(exception: string): string {
  const module = /^ModuleNotFoundError: No module named '([\w]+)/.exec(
    exception
  )?.[1];
  return module
    ? `The package is not installed in the kernel: install it first with \`%pip install ${PACKAGE_NAMES[module] ?? module}\` (a block of its own), then run the code again.`
    : '';
}

/** The hint for a NameError on a module's usual short name, or ''. */
function importHint(exception: string): string {
  const name = /^NameError: name '(\w+)' is not defined/.exec(exception)?.[1];
  const line = name ? MODULE_ALIASES[name] : undefined;
  return line ? `Start the block with \`${line}\`.` : '';
}

/**
 * The replacement an error message itself proposes ("Please use 'ME'
 * instead", "Did you mean h?"), as a hint. Small models read past it: under
 * pandas 3, Qwen2.5-Coder-1.5B sent `resample('M')` again after "'M' is no
 * longer supported … Please use 'ME' instead".
 */
function suggestionHint(exception: string): string {
  const found =
    /\buse ['"`]([^'"`\s]{1,40})['"`] instead/i.exec(exception) ??
    /\bDid you mean:? ['"`]?([\w.-]{1,40}?)['"`]?\?/.exec(exception);
  return found
    ? `The error names the fix: write '${found[1]}' where the block has the name it rejects.`
    : '';
}

/**
 * The hint for a table whose header is not on the first line, from the
 * parser's own count ("Expected 1 fields in line 3, saw 4": the lines
 * before line 3 are a preamble), or ''. Measured: told to "use skiprows=",
 * Qwen2.5-Coder-1.5B wrote skiprows=1 three times for a two-line preamble.
 */
function preambleHint(exception: string): string {
  const found = /Expected (\d+) fields? in line (\d+), saw (\d+)/.exec(
    exception
  );
  const [fields, line, saw] = (found?.slice(1) ?? []).map(Number);
  return found && fields === 1 && saw > 1 && line > 1
    ? `The table starts at line ${line}: the ${line - 1} line(s) before it are not part of it. Read it with skiprows=${line - 1}.`
    : '';
}

/**
 * The hint for columns picked with a tuple (`df.groupby('k')['a', 'b']`,
 * which pandas 2 refuses), with the failing line's own columns in double
 * brackets when it shows them, or ''. Measured in the walk: told "Use a list
 * instead", Qwen2.5-Coder-1.5B answered that its code was right.
 */
function tupleColumnsHint(exception: string, line: string | undefined): string {
  if (!/Cannot subset columns with a tuple/.test(exception)) {
    return '';
  }
  const columns =
    /(?<!\[)\[\s*((['"])[^'"\]]+\2(?:\s*,\s*(['"])[^'"\]]+\3)+)\s*\](?!\])/.exec(
      line ?? ''
    )?.[1];
  return columns
    ? `Pick several columns with a list, in double brackets: write [[${columns}]] where the line has [${columns}].`
    : "Pick several columns with a list, in double brackets: df.groupby('key')[['a', 'b']], not ['a', 'b'].";
}

/** The hint for a merge on a key one of the frames does not have, or ''. */
function mergeHint(exception: string, line: string | undefined): string {
  return /^KeyError/.test(exception) && /\bmerge\(/.test(line ?? '')
    ? "The key has a different name in each frame: merge with left_on='<its name in the left frame>', right_on='<its name in the right frame>' (each frame's columns are listed above), not on=."
    : '';
}

function clip(text: string): string {
  const line = text.trim();
  return line.length > MAX_QUOTE ? `${line.slice(0, MAX_QUOTE)}…` : line;
}

/** The focus of an error observation, or null when it shows no exception. */
export function failureFocus(
  observation: string,
  context: FailureContext = 'new-block'
): IFailureFocus | null {
  const exception = EXCEPTION_LINE.exec(observation)?.[1];
  if (!exception) {
    return null;
  }
  // The last arrow inside a cell's frame: the user's line that led to the
  // error (library frames come after it and are not the model's to change).
  let line: IFailureFocus['line'];
  let inCell = false;
  for (const text of observation.split('\n')) {
    if (CELL_FRAME.test(text)) {
      inCell = true;
      continue;
    }
    if (/^\s*(?:File\s|\[\d+ library frame)/.test(text)) {
      inCell = false;
    }
    const arrow = inCell ? ARROW_LINE.exec(text) : null;
    if (arrow) {
      line = { number: Number(arrow[1]), text: clip(arrow[2]) };
    }
  }
  const found =
    importHint(exception) ||
    installHint(exception) ||
    removedHint(exception) ||
    preambleHint(exception) ||
    mergeHint(exception, line?.text) ||
    tupleColumnsHint(exception, line?.text) ||
    (HINTS.find(([pattern]) => pattern.test(exception))?.[1] ??
      suggestionHint(exception));
  const hint =
    found === NEW_BLOCK_NAME_HINT && context === 'same-cell'
      ? FIXED_CELL_NAME_HINT
      : found;
  return { error: clip(exception), ...(line ? { line } : {}), hint };
}

/**
 * The failure in words, one line each: "failed at line 7 (`code`) with
 * ValueError: …", then the hint when there is one. Null without an exception.
 */
export function describeFailure(
  observation: string,
  context: FailureContext = 'new-block'
): string | null {
  const focus = failureFocus(observation, context);
  if (!focus) {
    return null;
  }
  const where = focus.line
    ? ` at line ${focus.line.number} (\`${focus.line.text}\`)`
    : '';
  return `failed${where} with ${focus.error}${focus.hint ? `\n${focus.hint}` : ''}`;
}
