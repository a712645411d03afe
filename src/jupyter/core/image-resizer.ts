/**
 * Downscales images in the browser before they are sent to a vision model:
 * a 2000-pixel plot costs several times the tokens of a 768-pixel one and
 * shows the model nothing more.
 */
import type {
  ICollectedImage,
  IImageResizer
} from '../../agent/context/images';

function toBlob(image: ICollectedImage): Blob {
  const bytes = Uint8Array.from(atob(image.base64), ch => ch.charCodeAt(0));
  return new Blob([bytes], { type: image.mime });
}

function toBase64(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',', 2)[1] ?? '');
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}

/** Resizes with createImageBitmap and a canvas; PNG out. */
export const canvasImageResizer: IImageResizer = {
  async resize(image, maxSide) {
    const bitmap = await createImageBitmap(toBlob(image));
    try {
      const scale = Math.min(
        1,
        maxSide / Math.max(bitmap.width, bitmap.height)
      );
      if (scale === 1) {
        return { ...image, width: bitmap.width, height: bitmap.height };
      }
      const width = Math.max(1, Math.round(bitmap.width * scale));
      const height = Math.max(1, Math.round(bitmap.height * scale));
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      canvas.getContext('2d')!.drawImage(bitmap, 0, 0, width, height);
      const blob = await new Promise<Blob>((resolve, reject) =>
        canvas.toBlob(
          b => (b ? resolve(b) : reject(new Error('toBlob failed'))),
          'image/png'
        )
      );
      return { mime: 'image/png', base64: await toBase64(blob), width, height };
    } finally {
      bitmap.close();
    }
  }
};
