/**
 * How long a test hook that starts a real Jupyter server (and a kernel) may
 * take. Beside the other suites on 2 cores the start alone took over 60 s
 * (seen in a fresh-clone `.ci/run` at 0c2e7c2): a hook budget, not a speed
 * claim (start-up speed is measured in bench/).
 */
export const SERVER_START_MS = 180000;
