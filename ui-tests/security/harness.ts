/**
 * Helpers of the security suite: its own scripted model server, watchers for
 * anything a payload could do (dialogs, canary requests, navigation, popups,
 * JupyterLab commands), and a scan of rendered DOM for live markup.
 */
import type {
  IJupyterLabPageFixture,
  JupyterLabPage
} from '@jupyterlab/galata';
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test';
import { receivedAt, scriptAt } from '../tests/scripted-model';

/** The run directory made by playwright.security.config.js. */
export const RUN_DIR = process.env.NOTEBOOK_AGENT_SECURITY_DIR ?? '';
/** The security suite's scripted model server. */
export const MODEL_ROOT = `http://127.0.0.1:${process.env.NOTEBOOK_AGENT_SECURITY_MODEL_PORT ?? '8766'}`;
/** Payloads point at canary URLs under this root (intercepted by the test). */
export const CANARY_ROOT = MODEL_ROOT;
/** The key in the Jupyter server's environment. */
export const SERVER_KEY = process.env.NOTEBOOK_AGENT_SECURITY_SERVER_KEY ?? '';

/** A chat request the scripted model received. */
export interface IRecordedRequest {
  path: string;
  headers: Record<string, string>;
  body: {
    model: string;
    messages: Array<{
      role: string;
      content: string | null | Array<{ type: string; text?: string }>;
      tool_call_id?: string;
    }>;
  };
}

/** Replace the model's script (and clear its record). */
export function script(
  request: APIRequestContext,
  turns: unknown[]
): Promise<void> {
  return scriptAt(MODEL_ROOT, request, turns);
}

/** The chat requests received since the script was loaded. */
export function received(
  request: APIRequestContext
): Promise<IRecordedRequest[]> {
  return receivedAt<IRecordedRequest>(MODEL_ROOT, request);
}

/**
 * Reload JupyterLab without waiting for the Launcher (Galata's default): the
 * restored workspace may show a notebook instead.
 */
export async function reloadLab(page: IJupyterLabPageFixture): Promise<void> {
  // Galata's own reload (it re-hooks its helpers): the fixture is a
  // JupyterLabPage, whose reload takes waitForIsReady, though its type
  // carries Playwright's reload signature.
  const lab = page as unknown as Pick<JupyterLabPage, 'reload'>;
  await lab.reload({ waitForIsReady: false });
  await page.locator('#jupyterlab-splash').waitFor({ state: 'detached' });
}

/** Print one line to the test output (the suite's summary lines). */
export function report(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** What the page did that it must not. */
export class Watcher {
  /** Canary URLs requested, by kind: `js` (script ran), `res` (a resource loaded), `nav`. */
  readonly canary: string[] = [];
  readonly dialogs: string[] = [];
  readonly navigations: string[] = [];
  readonly popups: string[] = [];
  /** Payload markers (`top.__xss`) and JupyterLab commands, from collect(). */
  readonly markers: string[] = [];
  readonly commands: string[] = [];

  private constructor(private readonly _page: Page) {}

  /** Start watching `page` and its context. */
  static async attach(page: Page, context: BrowserContext): Promise<Watcher> {
    const watcher = new Watcher(page);
    await context.route('**/canary/**', async route => {
      watcher.canary.push(route.request().url());
      await route.fulfill({ status: 204, body: '' });
    });
    page.on('dialog', dialog => {
      if (dialog.type() === 'beforeunload') {
        // JupyterLab's own "unsaved changes" prompt when the test reloads.
        void dialog.accept().catch(() => undefined);
        return;
      }
      watcher.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => undefined);
    });
    const origin = new URL(page.url()).origin;
    page.on('framenavigated', frame => {
      const url = frame.url();
      if (frame === page.mainFrame()) {
        if (!url.startsWith(`${origin}/lab`)) {
          watcher.navigations.push(url);
        }
      } else if (url && url !== 'about:blank' && url !== 'about:srcdoc') {
        watcher.navigations.push(`frame: ${url}`);
      }
    });
    context.on('page', popup => {
      watcher.popups.push(popup.url());
      void popup.close().catch(() => undefined);
    });
    await watcher.arm();
    return watcher;
  }

  /** (Re)install the command spy: after attach, and after every reload. */
  async arm(): Promise<void> {
    await this._page.evaluate(() => {
      const w = window as unknown as { __commands?: string[] };
      if (w.__commands) {
        return;
      }
      w.__commands = [];
      window.jupyterapp.commands.commandExecuted.connect((_, args) => {
        w.__commands!.push(args.id);
      });
    });
  }

  /** Move the page's markers and commands into this watcher (before a reload, and at the end). */
  async collect(): Promise<void> {
    const found = await this._page.evaluate(() => {
      const w = window as unknown as {
        __xss?: string[];
        __commands?: string[];
      };
      const result = { markers: w.__xss ?? [], commands: w.__commands ?? [] };
      w.__xss = [];
      if (w.__commands) {
        w.__commands = [];
      }
      return result;
    });
    this.markers.push(...found.markers);
    this.commands.push(...found.commands);
  }

  /** Canary hits of one kind, as "surface/id". */
  hits(kind: 'js' | 'res' | 'nav'): string[] {
    return this.canary
      .map(url => new URL(url).pathname.split('/').filter(Boolean))
      .filter(parts => parts[3] === kind)
      .map(parts => `${parts[1]}/${parts[2]}`);
  }
}

/** Live markup found in a part of the page. */
export interface IScan {
  elements: number;
  /** Elements with on* attributes. */
  handlers: string[];
  /** javascript:/vbscript:/data:text/html URLs in any URL attribute. */
  scriptUrls: string[];
  /** script, iframe, object, embed, base, meta, link, style, frame elements. */
  activeTags: string[];
  /** Command-linker attributes (a click would run a JupyterLab command). */
  commandLinks: string[];
  /** Remote resources an element would load (src, srcset, poster, background, CSS url()). */
  remote: string[];
}

/** Scan every element under `selector` (shadow roots included). */
export async function scan(page: Page, selector: string): Promise<IScan> {
  return page.evaluate(sel => {
    const result = {
      elements: 0,
      handlers: [] as string[],
      scriptUrls: [] as string[],
      activeTags: [] as string[],
      commandLinks: [] as string[],
      remote: [] as string[]
    };
    const URL_ATTRS = [
      'href',
      'xlink:href',
      'src',
      'action',
      'formaction',
      'data',
      'poster',
      'background',
      'srcdoc',
      'ping',
      'cite',
      'longdesc',
      'lowsrc',
      'dynsrc'
    ];
    const RESOURCE_ATTRS = ['src', 'srcset', 'poster', 'background', 'data'];
    const ACTIVE = [
      'script',
      'iframe',
      'object',
      'embed',
      'base',
      'meta',
      'link',
      'style',
      'frame',
      'frameset',
      'applet'
    ];
    const squash = (value: string) =>
      // eslint-disable-next-line no-control-regex
      value.replace(/[\u0000-\u0020\u007f-\u00a0]/g, '').toLowerCase();
    const label = (el: Element, what: string) =>
      `<${el.tagName.toLowerCase()}> ${what}`.slice(0, 200);
    const visit = (root: Element | ShadowRoot) => {
      for (const el of Array.from(root.querySelectorAll('*'))) {
        result.elements++;
        const tag = el.tagName.toLowerCase();
        if (ACTIVE.includes(tag)) {
          result.activeTags.push(label(el, el.outerHTML.slice(0, 120)));
        }
        for (const attr of Array.from(el.attributes)) {
          const name = attr.name.toLowerCase();
          const value = squash(attr.value);
          if (name.startsWith('on')) {
            result.handlers.push(label(el, `${name}=${attr.value}`));
          }
          if (
            URL_ATTRS.includes(name) &&
            /^(javascript|vbscript|livescript):|^data:text\/html/.test(value)
          ) {
            result.scriptUrls.push(label(el, `${name}=${attr.value}`));
          }
          if (name.startsWith('data-commandlinker')) {
            result.commandLinks.push(label(el, `${name}=${attr.value}`));
          }
          const remoteUrl = (v: string) =>
            /^(https?:)?\/\//.test(v) || /^[a-z][a-z0-9+.-]*:/.test(v)
              ? !v.startsWith('data:') && !v.startsWith('blob:')
              : false;
          if (
            (RESOURCE_ATTRS.includes(name) ||
              (name.endsWith('href') && ['image', 'use'].includes(tag))) &&
            value
              .split(',')
              .some(part => remoteUrl(part.trim().split(/\s/)[0] ?? ''))
          ) {
            result.remote.push(label(el, `${name}=${attr.value}`));
          }
          if (name === 'style' && /url\(|\\|expression\(/.test(value)) {
            result.remote.push(label(el, `style=${attr.value}`));
          }
        }
        if (el.shadowRoot) {
          visit(el.shadowRoot);
        }
      }
    };
    for (const root of Array.from(document.querySelectorAll(sel))) {
      visit(root);
    }
    return result;
  }, selector);
}

/** Every finding of a scan, flattened (empty when clean). */
export function findings(result: IScan, remote = true): string[] {
  return [
    ...result.handlers,
    ...result.scriptUrls,
    ...result.activeTags,
    ...result.commandLinks,
    ...(remote ? result.remote : [])
  ];
}
