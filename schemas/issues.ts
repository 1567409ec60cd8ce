/** Valibot's issues in words, for errors that must name the field at fault. */
import * as v from 'valibot';

/** Each issue as `<dotted path>: <message>` (`root` for the value itself), joined by `; `. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[], root = '(root)'): string {
  return issues.map((issue) => `${v.getDotPath(issue) ?? root}: ${issue.message}`).join('; ');
}
