/**
 * Images a tool's outputs showed (a plot from run_cell), kept on its
 * transcript item so the sidebar can show thumbnails. Bounded three ways:
 * a few per card, a byte cap per image, and image data on the newest cards
 * only; whatever is dropped is counted, so the card can say so.
 */
import type { IImageAttachment } from './types';

/** An image on a tool's transcript item. */
export interface IToolImage {
  mime: string;
  /** Base64, no whitespace. */
  base64: string;
  width?: number;
  height?: number;
}

/** What a tool item keeps of its images. */
export interface IToolImages {
  /** The images shown as thumbnails (absent when none). */
  images?: IToolImage[];
  /** Images the outputs had that the card does not show (caps, saved chats). */
  moreImages?: number;
}

/** At most this many images per tool card. */
export const MAX_TOOL_IMAGES = 4;

/** Larger images (base64 characters, about 375 KB of image) get no thumbnail. */
export const MAX_TOOL_IMAGE_CHARS = 500_000;

/** Only the newest this many images of the transcript keep their data. */
export const MAX_TRANSCRIPT_IMAGES = 24;

/** Raster formats an <img> shows without running anything. */
const THUMBNAIL_MIMES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp'
]);

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Whether `image` can be shown as a thumbnail (known format, clean base64, small enough). */
export function isThumbnailable(image: IImageAttachment): boolean {
  return (
    THUMBNAIL_MIMES.has(image.mime) &&
    image.base64.length <= MAX_TOOL_IMAGE_CHARS &&
    BASE64.test(image.base64)
  );
}

/** The images a tool card keeps of a tool result's `images`. */
export function toolImages(
  images: ReadonlyArray<IImageAttachment> | undefined
): IToolImages {
  if (!images?.length) {
    return {};
  }
  const kept = images
    .filter(isThumbnailable)
    .slice(0, MAX_TOOL_IMAGES)
    .map(({ mime, base64, width, height }) => ({
      mime,
      base64,
      ...(width !== undefined ? { width } : {}),
      ...(height !== undefined ? { height } : {})
    }));
  const more = images.length - kept.length;
  return {
    ...(kept.length ? { images: kept } : {}),
    ...(more > 0 ? { moreImages: more } : {})
  };
}

/** An item that may carry tool images. */
type WithImages = { images?: IToolImage[]; moreImages?: number };

/** `item` without its image data, the images counted in `moreImages`. */
export function dropImages<T extends WithImages>(item: T): T {
  if (!item.images?.length) {
    return item;
  }
  const rest = { ...item };
  delete rest.images;
  return { ...rest, moreImages: (item.moreImages ?? 0) + item.images.length };
}

/**
 * `items` with image data on the newest cards only (`limit` images in all):
 * a long chat full of plots must not hold them all in memory. Returns the
 * same array when nothing changes.
 */
export function capTranscriptImages<T>(
  items: ReadonlyArray<T>,
  limit = MAX_TRANSCRIPT_IMAGES
): ReadonlyArray<T> {
  let seen = 0;
  let result: T[] | null = null;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as T & WithImages;
    const count = item.images?.length ?? 0;
    if (!count) {
      continue;
    }
    seen += count;
    if (seen > limit) {
      result = result ?? [...items];
      result[i] = dropImages(item);
    }
  }
  return result ?? items;
}
