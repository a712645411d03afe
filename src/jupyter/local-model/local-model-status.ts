/**
 * The one status store of the local model, shared by the client (which
 * updates it) and the sidebar's progress bar (which reads it). Small and
 * free of transformers.js, so the sidebar can import it at start-up.
 */
import { LocalModelStatusStore } from '../../agent/model/local/load-status';

/** What the local model is doing now. */
export const localModelStatus = new LocalModelStatusStore();
