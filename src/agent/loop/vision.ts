/**
 * Images for vision-capable models: plots the agent's code produced are
 * attached (downscaled) to a short observation message after the tool
 * results, since tool messages can only carry text. Only the latest images
 * stay in the request; older ones become a line of text.
 */
import type { IImageResizer } from '../context/images';
import type { ChatMessage, IImageAttachment } from '../types';

/** How images reach the model. */
export interface IVisionOptions {
  /** Whether the model accepts images. */
  enabled: boolean;
  /** Longest side in pixels after downscaling. */
  maxSide: number;
  /** Downscales images; without one they are sent as they are. */
  resizer?: IImageResizer;
}

/** At most this many images per step. */
export const MAX_IMAGES_PER_STEP = 4;

const ATTACHED = 'Images from the outputs above';
const DROPPED = '[images from an earlier step elided to save context]';

/** The observation message that carries `images`, or null when there are none. */
export async function imageObservation(
  images: IImageAttachment[],
  options: IVisionOptions
): Promise<ChatMessage | null> {
  if (!options.enabled || !images.length) {
    return null;
  }
  const kept = images.slice(0, MAX_IMAGES_PER_STEP);
  const resized = await Promise.all(
    kept.map(async image => {
      const big =
        Math.max(image.width ?? Infinity, image.height ?? Infinity) >
        options.maxSide;
      if (!options.resizer || !big) {
        return image;
      }
      try {
        return await options.resizer.resize(image, options.maxSide);
      } catch {
        return image;
      }
    })
  );
  const more = images.length - kept.length;
  return {
    role: 'user',
    observation: true,
    content: `${ATTACHED}${more > 0 ? ` (${more} more not shown)` : ''}.`,
    images: resized
  };
}

/** The history with images only in the latest observation that has any. */
export function withLatestImagesOnly(messages: ChatMessage[]): ChatMessage[] {
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user' && m.observation && m.images?.length) {
      last = i;
    }
  });
  if (last < 0) {
    return messages;
  }
  return messages.map((m, i) =>
    i < last && m.role === 'user' && m.observation && m.images?.length
      ? { role: 'user', observation: true, content: DROPPED }
      : m
  );
}
