/**
 * The text of `jupyterlab_notebook_agent/outside_tools.json`: the outside
 * catalogue as the Python server reads it.
 */
import { outsideCatalogue } from './catalogue';

/** The catalogue file's text (two-space JSON, a final newline). */
export function outsideCatalogueText(): string {
  return `${JSON.stringify({ tools: outsideCatalogue() }, null, 2)}\n`;
}
