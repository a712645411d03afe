/**
 * Dates kept as text, said to a small model when a request or a step asks
 * by a unit of time: found in the kernel's frames (a text dtype and a
 * date-like name) and in a file's first lines (a date-like first value),
 * and said only when the text asks by time. The Generate plan's and step's
 * prompts carry it.
 */
import {
  asksByTime,
  frameDateColumns,
  previewDateColumns,
  timeHint
} from '../context/time-columns';
import { arrayConversation } from '../loop/conversation';
import { runAgent } from '../loop/run-agent';
import { runConfig } from '../loop/run-config';
import { FakeNotebook } from '../testing/fake-notebook';
import { ScriptedModel } from '../testing/scripted-model';
import { agentTools } from '../tools/all-tools';
import { ToolRegistry } from '../tools/registry';
import { planPrompt, stepPrompt } from '../workflows/generate-by-steps';

const PREVIEW =
  'First lines of traffic.csv, as stored:\n```\ntimestamp,visits\n2024-03-01 00:00:00,80\n2024-03-01 01:00:00,36\n```';

describe('dates kept as text', () => {
  it('are found in frames by a text dtype and a date-like name, then the parsed ones; not numeric columns', () => {
    expect(
      frameDateColumns([
        {
          name: 'df',
          type: 'pandas.DataFrame',
          columns: [
            ['date', 'object'],
            ['when_parsed', 'datetime64[ns]'],
            ['day_count', 'int64'],
            ['region', 'object']
          ]
        },
        { name: 'x', type: 'builtins.int', repr: '3' }
      ])
    ).toEqual([
      { frame: 'df', column: 'date' },
      { frame: 'df', column: 'when_parsed', parsed: true }
    ]);
  });

  it('a parsed date column gets the accessors, not the parse', () => {
    const hint = timeHint('the monthly mean temperature', [
      { frame: 'w', column: 'date', parsed: true }
    ]);
    expect(hint).toContain("w['date'].dt.to_period('M')");
    expect(hint).toContain('not by `date` itself');
    expect(hint).not.toContain('to_datetime');
  });

  it('are found in a preview by the first value under the header, whatever the separator', () => {
    expect(previewDateColumns(PREVIEW)).toEqual([
      { frame: null, column: 'timestamp' }
    ]);
    expect(
      previewDateColumns(
        'First lines of eu.csv, as stored:\n```\nday;temp\n01.02.2024;3,5\n```'
      )
    ).toEqual([{ frame: null, column: 'day' }]);
    expect(previewDateColumns('```\nregion,units\nWest,6\n```')).toEqual([]);
    expect(previewDateColumns(null)).toEqual([]);
  });

  it('are named with the parse and the accessors only when the text asks by time', () => {
    const columns = [{ frame: 'weather', column: 'date' }];
    expect(asksByTime('the total rainfall of each year')).toBe(true);
    expect(asksByTime('mean visits by hour of day')).toBe(true);
    expect(asksByTime('revenue by region')).toBe(false);
    expect(asksByTime('Which month of that year was the coldest?')).toBe(true);
    expect(asksByTime('What was the mean temp_c in 2024?')).toBe(true);
    expect(asksByTime('the monthly mean temperature')).toBe(true);
    // An adjective that describes the data is not a question by time.
    expect(
      asksByTime(
        'traffic.csv has hourly website visits. How many visits are there in total?'
      )
    ).toBe(false);
    expect(timeHint('revenue by region', columns)).toBeNull();
    expect(timeHint('rain per month', [])).toBeNull();
    const hint = timeHint('rain per month', columns);
    expect(hint).toContain("weather['date'] = pd.to_datetime(weather['date'])");
    expect(hint).toContain("weather['date'].dt.to_period('M')");
    expect(hint).toContain('.dt.hour');
  });
});

describe('Generate’s plan and step prompts', () => {
  it('the plan asks for steps in words, one per ask, and names text dates', () => {
    const prompt = planPrompt(
      'Using traffic.csv, the mean visits by hour of day',
      [{ name: 'traffic.csv' }],
      PREVIEW
    );
    expect(prompt).toContain(
      'each thing the request asks for gets its own step'
    );
    // No example plan: the 1.5B copied one as its plan.
    expect(prompt).not.toMatch(/for example/i);
    expect(prompt).toContain(
      "df['timestamp'] = pd.to_datetime(df['timestamp'])"
    );
    expect(
      planPrompt(
        'Revenue by region of sales.csv',
        [{ name: 'sales.csv' }],
        PREVIEW
      )
    ).not.toContain('pd.to_datetime');
  });

  it('a step that asks by time names the frame’s text date column; others do not', () => {
    const hint = timeHint('Plot the daily temperature', [
      { frame: 'df', column: 'date' }
    ]);
    expect(
      stepPrompt(1, 3, 'Plot the daily temperature', 'Variables…', {
        dates: hint
      })
    ).toContain("df['date'].dt.date");
    expect(stepPrompt(1, 3, 'Print the mean', 'Variables…')).not.toContain(
      'to_datetime'
    );
  });
});

describe('a question by time, with a small model', () => {
  it('gets the hint beside the file’s first lines; a question not by time does not', async () => {
    const csv =
      'timestamp,visits\n2024-03-01 00:00:00,80\n2024-03-01 01:00:00,36\n';
    const firstContext = async (question: string) => {
      const model = new ScriptedModel([{ text: 'ANSWER: 1' }]);
      await runAgent(
        runConfig({
          model,
          tools: new ToolRegistry(agentTools()),
          computeFirst: { protocol: 'native' }
        }),
        {
          notebook: new FakeNotebook({ files: { 'traffic.csv': csv } }),
          conversation: arrayConversation([
            { role: 'system', content: 's' },
            { role: 'user', content: question }
          ]),
          signal: new AbortController().signal,
          onEvent: () => undefined
        }
      );
      return String(model.requests[0].messages[2].content);
    };
    const byHour = await firstContext(
      'Which hour of day has the most visits in traffic.csv?'
    );
    expect(byHour).toContain('timestamp,visits');
    expect(byHour).toContain(
      "df['timestamp'] = pd.to_datetime(df['timestamp'])"
    );
    expect(
      await firstContext('What is the largest number of visits in traffic.csv?')
    ).not.toContain('to_datetime');
  });
});
