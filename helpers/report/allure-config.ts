/**
 * The Allure 3 configuration `ocp-e2e report` generates with: one self-contained index.html (the awesome plugin's
 * single-file mode: no widgets/*.json to fetch, which a browser refuses over file://), the run's history kept in a file
 * of its own, and Categories by failure kind, each grouped by the failure's masked summary rather than by its raw text.
 */
import { FAILURE_KINDS } from './failure-kinds.cjs';

/** Failures that `ocp-e2e run --known-issues` matched: skipped, with a message that starts with the bug. */
const KNOWN_ISSUES_CATEGORY = {
  id: 'known-issue',
  name: 'Known issues',
  matchers: { statuses: ['skipped'], message: '^Known issue ' },
  groupByMessage: true,
  expand: true,
};

export interface AllureConfigInput {
  name: string;
  output: string;
  historyPath: string;
}

export function allureConfig(input: AllureConfigInput): Record<string, unknown> {
  return {
    name: input.name,
    output: input.output,
    historyPath: input.historyPath,
    plugins: {
      awesome: { options: { singleFile: true, reportName: input.name, reportLanguage: 'en', groupBy: ['parentSuite', 'suite', 'subSuite'] } },
    },
    categories: {
      rules: [KNOWN_ISSUES_CATEGORY, ...FAILURE_KINDS.map((k) => ({
        id: k.id,
        name: k.name,
        matchers: { statuses: ['failed', 'broken'], message: k.pattern.source },
        groupBy: [{ label: 'phase' }, { label: 'failure' }],
        groupByMessage: false,
        expand: true,
      }))],
    },
  };
}
