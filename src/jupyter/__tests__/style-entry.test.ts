/**
 * JupyterLab 4 loads the extension's styles from `style/index.js` (the
 * package's styleModule), not from `style/index.css`: a stylesheet that only
 * index.css imports never reaches the page (mcp.css and cards.css were
 * missing that way). Both entries must name the same files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const STYLE = join(__dirname, '..', '..', '..', 'style');

function imported(file: string, pattern: RegExp): string[] {
  const text = readFileSync(join(STYLE, file), 'utf8');
  return [...text.matchAll(pattern)].map(m => m[1].replace(/^\.\//, '')).sort();
}

describe('style entries', () => {
  it('style/index.js imports every stylesheet that style/index.css does, and every one in style/', () => {
    const fromJs = imported('index.js', /import\s+'([^']+\.css)'/g);
    const fromCss = imported('index.css', /@import url\('([^']+\.css)'\)/g);
    expect(fromJs).toEqual(fromCss);
    const sheets = readdirSync(STYLE)
      .filter(name => name.endsWith('.css') && name !== 'index.css')
      .sort();
    expect(fromJs).toEqual(sheets);
  });
});
