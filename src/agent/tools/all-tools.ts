/**
 * The agent's toolset, in the order the model sees it.
 */
import { deleteCell, editCell, insertCell } from './notebook-edit-tools';
import { readCell, readNotebook, readOutput } from './notebook-read-tools';
import {
  inspectVariables,
  installPackage,
  interruptKernel,
  restartKernel,
  runCell,
  runCode,
  wait
} from './kernel-tools';
import { listFiles, readFile, runShell } from './file-tools';
import { updatePlan } from './plan-tool';
import { writeFile } from './write-file-tool';
import type { ITool } from './registry';

/** Every tool of the notebook agent. */
export function agentTools(): ITool<never>[] {
  return [
    updatePlan,
    readNotebook,
    readCell,
    readOutput,
    insertCell,
    editCell,
    deleteCell,
    runCell,
    wait,
    runCode,
    inspectVariables,
    interruptKernel,
    restartKernel,
    installPackage,
    listFiles,
    readFile,
    writeFile,
    runShell
  ] as ITool<never>[];
}
