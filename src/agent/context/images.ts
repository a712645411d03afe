/**
 * Images in outputs: a one-line text description (mime, pixel size read
 * from the header bytes, approximate size, alt text) instead of base64, and
 * the images themselves for vision-capable models.
 */
import type { CellOutput } from '../ports';
import { asText, base64Bytes, clipLine, formatBytes } from './text';

/** An image taken from the outputs, ready to attach to a model request. */
export interface ICollectedImage {
  mime: string;
  /** Base64 without whitespace. */
  base64: string;
  /** Pixel size read from the header, when the format is known. */
  width?: number;
  height?: number;
}

/**
 * Downscales images before they are sent to a model. Implemented outside the
 * headless core (a canvas in the browser, a native library in Node).
 */
export interface IImageResizer {
  /** Resolve with a copy whose longer side is at most `maxSide` pixels. */
  resize(image: ICollectedImage, maxSide: number): Promise<ICollectedImage>;
}

/** Mime types sent to vision models; also described (not pasted) in text. */
export const VISION_IMAGE_MIMES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp'
];

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_VALUE = new Map([...B64].map((ch, i) => [ch, i]));

/**
 * Decode the first `maxBytes` bytes of base64 text. Header parsing needs only
 * a prefix, and neither atob nor Buffer exists in every runtime we target.
 */
export function decodeBase64Prefix(
  base64: string,
  maxBytes: number
): Uint8Array {
  const out = new Uint8Array(Math.min(maxBytes, base64.length));
  let length = 0;
  let bits = 0;
  let buffer = 0;
  for (let i = 0; i < base64.length && length < out.length; i++) {
    const value = B64_VALUE.get(base64[i]);
    if (value === undefined) {
      if (base64[i] === '=') {
        break;
      }
      continue; // whitespace from line-wrapped base64
    }
    buffer = (buffer << 6) | value;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[length++] = (buffer >> bits) & 0xff;
    }
  }
  return out.subarray(0, length);
}

/** Pixel size of a PNG, JPEG or GIF from its first bytes, if readable. */
export function imageSize(
  bytes: Uint8Array
): { width: number; height: number } | null {
  const u16be = (i: number) => (bytes[i] << 8) | bytes[i + 1];
  const u32be = (i: number) => u16be(i) * 0x10000 + u16be(i + 2);
  // PNG: signature, then the IHDR chunk with width and height.
  if (
    bytes.length >= 24 &&
    bytes[0] === 0x89 &&
    bytes[1] === 0x50 &&
    bytes[12] === 0x49 &&
    bytes[15] === 0x52
  ) {
    return { width: u32be(16), height: u32be(20) };
  }
  // GIF: "GIF8", then little-endian width and height.
  if (
    bytes.length >= 10 &&
    bytes[0] === 0x47 &&
    bytes[1] === 0x49 &&
    bytes[2] === 0x46 &&
    bytes[3] === 0x38
  ) {
    return {
      width: bytes[6] | (bytes[7] << 8),
      height: bytes[8] | (bytes[9] << 8)
    };
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    return jpegSize(bytes, u16be);
  }
  return null;
}

// Start-of-frame markers carry the size; C4, C8 and CC are not frames.
const SOF = new Set([
  0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf
]);

function jpegSize(
  bytes: Uint8Array,
  u16be: (i: number) => number
): { width: number; height: number } | null {
  // Walk the segments (APPn/EXIF, tables…) up to the first frame header.
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) {
      return null;
    }
    const marker = bytes[i + 1];
    if (marker === 0xff) {
      i++; // fill byte
    } else if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2; // markers without a length
    } else if (SOF.has(marker)) {
      return { width: u16be(i + 7), height: u16be(i + 5) };
    } else {
      i += 2 + u16be(i + 2);
    }
  }
  return null;
}

// EXIF and colour profiles can precede the frame header by tens of KB.
const HEADER_BYTES = 256 * 1024;

function sizeOf(base64: string): { width: number; height: number } | null {
  return imageSize(decodeBase64Prefix(base64, HEADER_BYTES));
}

/** Reprs that say nothing about the picture (e.g. IPython's Image object). */
const DEFAULT_REPR = /^<[\w.]+ object(?: at 0x[0-9a-f]+)?>$/;

/** Alt text from the output metadata, or from a meaningful text/plain. */
export function altText(
  mime: string,
  plain: string,
  metadata: Record<string, unknown> | undefined
): string {
  const forMime = metadata?.[mime];
  const alt =
    (typeof forMime === 'object' && forMime !== null && 'alt' in forMime
      ? asText((forMime as Record<string, unknown>).alt)
      : '') || asText(metadata?.alt);
  if (alt.trim()) {
    return alt.trim();
  }
  const text = plain.trim();
  return text && !DEFAULT_REPR.test(text) ? text : '';
}

/**
 * One line describing an image: "[image/png 547×434 px, ~22 KB: alt]".
 * SVG is text, so its size is its length.
 */
export function describeImage(mime: string, value: unknown, alt = ''): string {
  const data = asText(value);
  const parts = [mime];
  if (mime === 'image/svg+xml') {
    parts.push(formatBytes(data.length));
  } else {
    const size = sizeOf(data);
    if (size) {
      parts[0] += ` ${size.width}×${size.height} px`;
    }
    parts.push(formatBytes(base64Bytes(data)));
  }
  const label = alt ? `: ${clipLine(alt.replace(/\s+/g, ' '), 200)}` : '';
  return `[${parts.join(', ')}${label}]`;
}

/**
 * The images of `outputs` (PNG, JPEG, GIF, WebP), in order, with their pixel
 * size when the header says it, for models that accept images.
 */
export function collectImages(outputs: CellOutput[]): ICollectedImage[] {
  const images: ICollectedImage[] = [];
  for (const output of outputs) {
    if (output.type !== 'execute_result' && output.type !== 'display_data') {
      continue;
    }
    for (const mime of VISION_IMAGE_MIMES) {
      const data = asText(output.data[mime]).replace(/\s/g, '');
      if (!data) {
        continue;
      }
      const size = sizeOf(data);
      images.push(
        size ? { mime, base64: data, ...size } : { mime, base64: data }
      );
    }
  }
  return images;
}
