/** The port contract on the fake notebook (src/agent/testing/fake-notebook.ts). */
import { fakeHarness } from '../testing/port-contract/fake-harness';
import { describePortContract } from './port-contract-suite';

const harness = fakeHarness();
describePortContract('FakeNotebook', () => harness, harness.notApplicable);
