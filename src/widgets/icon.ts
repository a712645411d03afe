/**
 * The Notebook Agent icon, themed like JupyterLab's own icons.
 */
import { LabIcon } from '@jupyterlab/ui-components';
import agentSvg from '../../style/icons/agent.svg';

/** The sidebar and command icon. */
export const agentIcon = new LabIcon({
  name: 'notebook-agent:agent',
  svgstr: agentSvg
});
