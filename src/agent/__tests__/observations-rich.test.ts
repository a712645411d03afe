import {
  collectImages,
  decodeBase64Prefix,
  describeImage,
  imageSize
} from '../context/images';
import { formatOutput } from '../context/observations';
import { dataFrameShape, htmlToText } from '../context/rich';

const b64 = (bytes: number[]) => Buffer.from(bytes).toString('base64');
const u32 = (n: number) => [
  n >>> 24,
  (n >>> 16) & 255,
  (n >>> 8) & 255,
  n & 255
];

/** A PNG's signature and IHDR chunk, padded to look like a real file. */
function pngBase64(width: number, height: number, padding = 3000): string {
  return b64([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    ...u32(13),
    0x49,
    0x48,
    0x44,
    0x52,
    ...u32(width),
    ...u32(height),
    8,
    6,
    0,
    0,
    0,
    ...new Array<number>(padding).fill(7)
  ]);
}

/** A JPEG whose frame header follows a large APP1 (EXIF) segment. */
function jpegBase64(width: number, height: number): string {
  const exif = new Array<number>(20_000).fill(0x45);
  return b64([
    0xff,
    0xd8,
    0xff,
    0xe1,
    (exif.length + 2) >> 8,
    (exif.length + 2) & 255,
    ...exif,
    0xff,
    0xc2,
    0,
    17,
    8,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    3,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0
  ]);
}

describe('images', () => {
  it('decodes a base64 prefix, skipping line wraps', () => {
    const wrapped = b64([1, 2, 3, 4, 5, 6]).replace(/(.{4})/g, '$1\n');
    expect([...decodeBase64Prefix(wrapped, 4)]).toEqual([1, 2, 3, 4]);
    expect([...decodeBase64Prefix(b64([250, 251]), 10)]).toEqual([250, 251]);
  });

  it('reads the pixel size of PNG, JPEG (after EXIF) and GIF headers', () => {
    const bytes = (text: string) => decodeBase64Prefix(text, 1 << 20);
    expect(imageSize(bytes(pngBase64(1920, 1080)))).toEqual({
      width: 1920,
      height: 1080
    });
    expect(imageSize(bytes(jpegBase64(4032, 3024)))).toEqual({
      width: 4032,
      height: 3024
    });
    const gif = [0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x40, 0x01, 0xf0, 0x00];
    expect(imageSize(Uint8Array.from(gif))).toEqual({
      width: 320,
      height: 240
    });
    expect(imageSize(Uint8Array.from([1, 2, 3, 4, 5]))).toBeNull();
  });

  it('describes an image in one line with size and alt text, never base64', () => {
    const png = pngBase64(800, 600, 30_000);
    const text = formatOutput({
      type: 'display_data',
      data: {
        'image/png': png,
        'text/plain': '<Figure size 800x600 with 2 Axes>'
      },
      metadata: {}
    });
    expect(text).toBe(
      '[image/png 800×600 px, ~29 KB: <Figure size 800x600 with 2 Axes>]'
    );
    expect(describeImage('image/png', png, '')).toBe(
      '[image/png 800×600 px, ~29 KB]'
    );
  });

  it('takes alt text from metadata and ignores default object reprs', () => {
    const jpeg = jpegBase64(64, 32);
    expect(
      formatOutput({
        type: 'display_data',
        data: {
          'image/jpeg': jpeg,
          'text/plain': '<IPython.core.display.Image object>'
        },
        metadata: { 'image/jpeg': { alt: 'a cat' } }
      })
    ).toBe('[image/jpeg 64×32 px, ~20 KB: a cat]');
    expect(
      formatOutput({
        type: 'display_data',
        data: {
          'image/jpeg': jpeg,
          'text/plain': '<IPython.core.display.Image object>'
        }
      })
    ).toBe('[image/jpeg 64×32 px, ~20 KB]');
  });

  it('collects vision images with their size, without whitespace', () => {
    const png = pngBase64(10, 20);
    const images = collectImages([
      { type: 'stream', name: 'stdout', text: 'x' },
      {
        type: 'display_data',
        data: {
          'image/png': png.replace(/(.{76})/g, '$1\n'),
          'image/svg+xml': '<svg/>',
          'text/plain': 'fig'
        }
      },
      { type: 'execute_result', data: { 'image/webp': 'UklGRg==' } }
    ]);
    expect(images).toEqual([
      { mime: 'image/png', base64: png, width: 10, height: 20 },
      { mime: 'image/webp', base64: 'UklGRg==' }
    ]);
  });
});

describe('rich outputs', () => {
  it('prefers text/plain over HTML', () => {
    expect(
      formatOutput({
        type: 'execute_result',
        data: { 'text/plain': 'Series([1, 2])', 'text/html': '<b>ignored</b>' }
      })
    ).toBe('Series([1, 2])');
  });

  it('reads HTML as text when it is all there is, without base64', () => {
    const html =
      '<style>.x{}</style><h1>Title &amp; more</h1><p>a<br>b</p>' +
      `<img src="data:image/png;base64,${pngBase64(2, 2)}">` +
      `<a href="data:text/csv;base64,${'QUJD'.repeat(100)}">csv</a>`;
    const text = formatOutput({
      type: 'display_data',
      data: { 'text/html': html }
    });
    expect(text).toBe('Title & more\na\nb\ncsv');
    expect(htmlToText('<td>1</td><td>2</td>')).toBe('1 2');
  });

  it('elides data URIs that appear in text/plain', () => {
    const text = formatOutput({
      type: 'execute_result',
      data: { 'text/plain': `'data:image/png;base64,${pngBase64(2, 2)}'` }
    });
    expect(text).toBe("'data:image/png;base64,[~3 KB elided]'");
  });

  it('counts rows and columns of a DataFrame without the pandas footer', () => {
    const html =
      '<table border="1" class="dataframe"><thead><tr><th></th><th>a</th><th>b</th></tr></thead>' +
      '<tbody><tr><th>0</th><td>1</td><td>2</td></tr><tr><th>1</th><td>3</td><td>4</td></tr></tbody></table>';
    expect(dataFrameShape(html)).toEqual({
      rows: 2,
      columns: 2,
      names: ['a', 'b']
    });
    const text = formatOutput({
      type: 'execute_result',
      data: { 'text/html': html, 'text/plain': '   a  b\n0  1  2\n1  3  4' }
    });
    expect(text).toBe(
      'DataFrame: 2 rows × 2 columns (a, b)\n   a  b\n0  1  2\n1  3  4'
    );
  });

  it('falls back to JSON, then to naming the mime types', () => {
    expect(
      formatOutput({
        type: 'display_data',
        data: { 'application/json': { a: [1] } }
      })
    ).toBe('{\n "a": [\n  1\n ]\n}');
    expect(
      formatOutput({
        type: 'display_data',
        data: { 'application/vnd.plotly.v1+json': {} }
      })
    ).toBe('[rich output: application/vnd.plotly.v1+json]');
  });
});
