/**
 * The XSS corpus: payloads that run script, load a remote resource or
 * navigate if any surface renders them unsafely.
 *
 * Each payload is instantiated per surface, so a hit names where it came
 * from: script payloads run `JS`, which pushes "surface:id" to `top.__xss`
 * and fetches `/canary/<surface>/<id>/js`; resource payloads load
 * `/canary/<surface>/<id>/res`; navigation payloads go to `.../nav`. Some
 * call alert/confirm/prompt instead, which the test sees as dialogs.
 */

/** Where a canary URL points: `${root}/canary/${surface}/${id}/${kind}`. */
export type CanaryKind = 'js' | 'res' | 'nav';

/** One payload, ready to place. */
export interface IPayload {
  id: string;
  text: string;
}

interface ITemplate {
  id: string;
  /** `{JS}`: script to run; `{RES}`: a remote resource; `{NAV}`: a page; `{B64HTML}`: base64 of `<script>{JS}</script>`. */
  template: string;
}

const TEMPLATES: ITemplate[] = [
  { id: 'script', template: '<script>{JS}</script>' },
  { id: 'script-src', template: '<script src="{RES}"></script>' },
  { id: 'img-onerror', template: '<img src=x onerror="{JS}">' },
  { id: 'img-remote', template: '<img src="{RES}" alt="remote image">' },
  { id: 'img-srcset', template: '<img srcset="{RES} 1x" alt="srcset">' },
  { id: 'img-eval-src', template: '<img src=x:alert(1) onerror=eval(src)>' },
  { id: 'svg-onload', template: '<svg onload="{JS}"><rect/></svg>' },
  { id: 'svg-script', template: '<svg><script>{JS}</script></svg>' },
  {
    id: 'svg-xlink',
    template:
      '<svg><a xlink:href="javascript:{JS}"><text x="5" y="15">svg link</text></a></svg>'
  },
  {
    id: 'svg-animate',
    template:
      '<svg><animate onbegin="{JS}" attributeName="x" dur="1s"/><image href="{RES}"/></svg>'
  },
  { id: 'iframe-js', template: '<iframe src="javascript:{JS}"></iframe>' },
  {
    id: 'iframe-srcdoc',
    template: '<iframe srcdoc="&lt;script&gt;{JS}&lt;/script&gt;"></iframe>'
  },
  { id: 'object-data', template: '<object data="javascript:{JS}"></object>' },
  {
    id: 'embed-data',
    template: '<embed src="data:text/html;base64,{B64HTML}">'
  },
  { id: 'a-js', template: '<a href="javascript:{JS}">js link</a>' },
  {
    id: 'a-js-case',
    template: '<a href="  JaVaScRiPt:{JS}">mixed case link</a>'
  },
  {
    id: 'a-js-entity',
    template: '<a href="jav&#x09;ascript:{JS}">entity tab link</a>'
  },
  {
    id: 'a-js-decimal',
    template: '<a href="&#106;avascript:{JS}">decimal entity link</a>'
  },
  { id: 'md-js-link', template: '[markdown js link](javascript:{JS})' },
  {
    id: 'md-ref-link',
    template: '[reference link][evil]\n\n[evil]: javascript:{JS}'
  },
  { id: 'md-autolink', template: '<javascript:{JS}>' },
  {
    id: 'md-data-link',
    template: '[data link](data:text/html;base64,{B64HTML})'
  },
  { id: 'md-image', template: '![markdown image]({RES})' },
  {
    id: 'md-image-breakout',
    template: '![x](x" onerror="{JS})'
  },
  {
    id: 'a-handlers',
    template:
      '<a href="{NAV}" onclick="{JS}" onmouseover="{JS}">link with handlers</a>'
  },
  {
    id: 'details-toggle',
    template:
      '<details open ontoggle="{JS}"><summary>details</summary>body</details>'
  },
  { id: 'body-onload', template: '<body onload="{JS}">' },
  { id: 'input-autofocus', template: '<input autofocus onfocus="{JS}">' },
  {
    id: 'video-source',
    template: '<video><source onerror="{JS}" src="x"></video>'
  },
  {
    id: 'video-poster',
    template: '<video poster="{RES}" src="{RES}"></video>'
  },
  { id: 'audio-onerror', template: '<audio src=x onerror="{JS}"></audio>' },
  {
    id: 'form-action',
    template:
      '<form action="javascript:{JS}"><button type="submit">form submit</button></form>'
  },
  {
    id: 'form-plain',
    template:
      '<form><input name="q" value="1"><button type="submit">plain form</button></form>'
  },
  {
    id: 'button-formaction',
    template: '<button formaction="javascript:{JS}">formaction</button>'
  },
  {
    id: 'meta-refresh',
    template: '<meta http-equiv="refresh" content="0;url={NAV}">'
  },
  { id: 'base-href', template: '<base href="{NAV}/">' },
  { id: 'link-css', template: '<link rel="stylesheet" href="{RES}">' },
  { id: 'style-import', template: '<style>@import url("{RES}");</style>' },
  {
    id: 'css-bg',
    template: '<div style="background-image: url({RES})">css background</div>'
  },
  {
    id: 'css-escaped-url',
    template:
      '<div style="background: \\75 rl({RES}); list-style-image: url({RES})">css escape</div>'
  },
  {
    id: 'css-expression',
    template: '<div style="width: expression({JS})">css expression</div>'
  },
  {
    id: 'mxss-math',
    template:
      '<math><mtext><table><mglyph><style><img src=x onerror="{JS}"></style></mglyph></table></mtext></math>'
  },
  {
    id: 'mxss-noscript',
    template: '<noscript><p title="</noscript><img src=x onerror={JS}>"></p>'
  },
  { id: 'broken-tag', template: '<img src=x onerror={JS} ' },
  { id: 'nested-script', template: '<<script>script>{JS}<</script>/script>' },
  { id: 'comment-breakout', template: '<!--><img src=x onerror="{JS}">-->' },
  { id: 'cdata', template: '<![CDATA[<img src=x onerror="{JS}">]]>' },
  {
    id: 'template',
    template: '<template><img src=x onerror="{JS}"></template>'
  },
  { id: 'marquee', template: '<marquee onstart="{JS}">marquee</marquee>' },
  {
    id: 'attr-breakout',
    template: '"><img src=x onerror="{JS}"><b title="'
  },
  {
    id: 'dialog-alert',
    template: '<img src=x onerror="alert(document.domain)">'
  },
  { id: 'dialog-confirm', template: '<svg onload="confirm(1)"></svg>' },
  { id: 'latex-href', template: '$$\\href{javascript:{JS}}{latex href}$$' },
  {
    id: 'latex-unicode',
    template: '$\\unicode{<img src=x onerror="{JS}">}$'
  },
  {
    id: 'latex-style',
    template:
      '$$\\style{background-image: url({RES})}{x} + \\class{x"onclick="{JS}}{y}$$'
  },
  {
    id: 'latex-html',
    template:
      '$$\\text{<img src=x onerror="{JS}">}$$ and $x<img src=x onerror="{JS}">$'
  },
  {
    id: 'commandlinker',
    template:
      '<button data-commandlinker-command="help:about" data-commandlinker-args="{}">command link</button>'
  },
  {
    id: 'input-image',
    template: '<input type="image" src="{RES}" alt="image input">'
  },
  {
    id: 'table-background',
    template: '<table background="{RES}"><tr><td>t</td></tr></table>'
  }
];

/** How many payloads the corpus has. */
export const PAYLOAD_COUNT = TEMPLATES.length;

/** Base64 without "/" (pads the script with spaces): safe in file names. */
function base64(text: string): string {
  let padded = text;
  for (let i = 0; i < 8; i++) {
    const encoded = Buffer.from(padded).toString('base64');
    if (!encoded.includes('/')) {
      return encoded;
    }
    padded += ' ';
  }
  return Buffer.from(padded).toString('base64');
}

/** A canary URL under `root` (e.g. http://127.0.0.1:8766). */
export function canaryUrl(
  root: string,
  surface: string,
  id: string,
  kind: CanaryKind
): string {
  return `${root}/canary/${surface}/${id}/${kind}`;
}

/**
 * The script a payload runs if it executes: marks the page and calls the
 * canary (`compact`: a shorter form, for file names).
 */
export function scriptFor(
  root: string,
  surface: string,
  id: string,
  compact = false
): string {
  const url = canaryUrl(root, surface, id, 'js');
  const mark = JSON.stringify(`${surface}:${id}`);
  const body = compact
    ? `(top.__xss=top.__xss||[]).push(${mark});fetch(${JSON.stringify(url)})`
    : `try{(top.__xss=top.__xss||[]).push(${mark})}catch(e){}` +
      `;fetch(${JSON.stringify(url)},{mode:'no-cors'}).catch(function(){})`;
  return `eval(atob('${base64(body)}'))`;
}

/** The corpus for one surface. */
export function corpus(root: string, surface: string): IPayload[] {
  return TEMPLATES.map(({ id, template }) => {
    const js = scriptFor(root, surface, id);
    const b64html = Buffer.from(`<script>${js}</script>`).toString('base64');
    const text = template
      .split('{JS}')
      .join(js)
      .split('{RES}')
      .join(canaryUrl(root, surface, id, 'res'))
      .split('{NAV}')
      .join(canaryUrl(root, surface, id, 'nav'))
      .split('{B64HTML}')
      .join(b64html);
    return { id, text };
  });
}

/**
 * Payloads that are valid file names (no "/"): markup that runs script if a
 * file name is ever rendered as HTML.
 */
export function fileNamePayloads(root: string, surface: string): IPayload[] {
  const js = (id: string) => scriptFor(root, surface, id, true);
  return [
    { id: 'fn-img', text: `<img src=x onerror=${js('fn-img')}>.csv` },
    { id: 'fn-svg', text: `<svg onload=${js('fn-svg')}>.txt` },
    {
      id: 'fn-breakout',
      text: `"><img src=x onerror=${js('fn-breakout')}>.json`
    },
    { id: 'fn-alert', text: '<img src=x onerror=alert(1)>.py' },
    {
      id: 'fn-md',
      text: `[file](javascript:${js('fn-md')}).md`
    },
    {
      id: 'fn-details',
      text: `<details open ontoggle=${js('fn-details')}>.csv`
    }
  ];
}
