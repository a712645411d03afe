/**
 * The images a tool's outputs showed, as thumbnails on its card: a click
 * (or Enter) opens one full size under them, a second click closes it.
 * Images are shown only as <img> with a data URL of a raster format, so
 * nothing in them can run.
 */
import type { TranslationBundle } from '@jupyterlab/translation';
import React, { useId, useState } from 'react';
import { isThumbnailable, type IToolImage } from '../../agent/tool-images';
import { useTrans } from '../common/trans';

/** Props of `ToolImages`. */
export interface IToolImagesProps {
  images: ReadonlyArray<IToolImage>;
  /** Images the card does not show (caps, saved chats). */
  more: number;
}

/** The data URL of an image (checked: raster mime, clean base64). */
function dataUrl(image: IToolImage): string {
  return `data:${image.mime};base64,${image.base64}`;
}

/** "Image 1 of 2 (640×480)". */
function describe(
  image: IToolImage,
  index: number,
  count: number,
  trans: TranslationBundle
): string {
  return image.width && image.height
    ? trans.__(
        'Image %1 of %2 (%3×%4)',
        index + 1,
        count,
        image.width,
        image.height
      )
    : trans.__('Image %1 of %2', index + 1, count);
}

/** Thumbnails, and the image opened full size. */
export function ToolImages(props: IToolImagesProps): JSX.Element | null {
  const trans = useTrans();
  const images = props.images.filter(isThumbnailable);
  const more = props.more + props.images.length - images.length;
  const [open, setOpen] = useState<number | null>(null);
  const fullId = useId();
  if (!images.length && more <= 0) {
    return null;
  }
  const shown = open !== null ? images[open] : undefined;
  return (
    <div className="jp-AgentSidebar-toolImages">
      <div className="jp-AgentSidebar-thumbs">
        {images.map((image, index) => (
          <button
            key={index}
            className="jp-AgentSidebar-thumb"
            aria-expanded={open === index}
            aria-controls={open === index ? fullId : undefined}
            aria-label={trans.__(
              '%1: show full size',
              describe(image, index, images.length, trans)
            )}
            title={trans.__('Show full size')}
            onClick={() => setOpen(open === index ? null : index)}
          >
            <img src={dataUrl(image)} alt="" />
          </button>
        ))}
        {more > 0 && (
          <span className="jp-AgentSidebar-moreImages">
            {trans._n(
              '%1 image not shown here',
              '%1 images not shown here',
              more
            )}
          </span>
        )}
      </div>
      {shown && open !== null && (
        <figure id={fullId} className="jp-AgentSidebar-toolImageFull">
          <button
            className="jp-AgentSidebar-thumb"
            aria-label={trans.__('Close the full-size image')}
            title={trans.__('Close')}
            onClick={() => setOpen(null)}
          >
            <img
              src={dataUrl(shown)}
              alt={describe(shown, open, images.length, trans)}
            />
          </button>
        </figure>
      )}
    </div>
  );
}
