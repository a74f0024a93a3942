import type { AuditReport } from '../index.js';
import { Table } from './output.js';

// `lanes audit` for a person (text) or a ticket (Markdown): each check with its evidence and fix,
// then the table (check, PASS/FAIL, evidence, fix), then the verdict and the next action.

const EVIDENCE = 20;

function evidence(c: AuditReport['checks'][number], n: number): string {
  if (!c.findings.length) return '-';
  const first = c.findings.slice(0, n).map((f) => `${f.file}:${f.line}`);
  return `${first.join(', ')}${c.findings.length > n ? ` +${c.findings.length - n}` : ''}`;
}

export function renderAudit(r: AuditReport, markdown: boolean): string {
  const read = Object.entries(r.read)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const out: string[] = [];
  if (markdown) {
    out.push(`# lanes audit of \`${r.root}\``, '', `Read: ${read || 'nothing lanes audits'}.`, '');
    const passed = r.checks.filter((c) => c.status === 'PASS');
    if (passed.length) out.push(`Passed: ${passed.map((c) => c.title).join(', ')}.`, '');
    for (const c of r.checks.filter((x) => x.status === 'FAIL')) {
      out.push(`## FAIL — ${c.title} (\`${c.check}\`)`, '');
      for (const f of c.findings.slice(0, EVIDENCE)) out.push(`- \`${f.file}:${f.line}\` ${f.what}`);
      if (c.findings.length > EVIDENCE)
        out.push(`- … and ${c.findings.length - EVIDENCE} more (\`lanes audit --json\`)`);
      if (c.findings.length) out.push('', `Fix: ${c.fix}`);
      out.push('');
    }
    out.push('| check | result | evidence | fix |', '|---|---|---|---|');
    for (const c of r.checks)
      out.push(
        `| ${c.title} | ${c.status} | ${evidence(c, 3)} | ${c.status === 'FAIL' ? c.fix.replace(/\|/g, '\\|') : ''} |`,
      );
    out.push('', `**Verdict: ${r.verdict}.** Next: ${r.next}.`, '');
    return out.join('\n');
  }
  out.push(`lanes audit of ${r.root}`, `read: ${read || 'nothing lanes audits'}`);
  if (r.skipped.length)
    out.push(
      `not read (over 1 MiB or minified): ${r.skipped.slice(0, 5).join(', ')}${r.skipped.length > 5 ? ` and ${r.skipped.length - 5} more` : ''}`,
    );
  out.push('');
  for (const c of r.checks) {
    out.push(`${c.status}  ${c.title}${c.findings.length ? ` (${c.findings.length})` : ''}`);
    for (const f of c.findings.slice(0, EVIDENCE)) out.push(`  ${f.file}:${f.line}  ${f.what}`);
    if (c.findings.length > EVIDENCE) out.push(`  … and ${c.findings.length - EVIDENCE} more (lanes audit --json)`);
    if (c.findings.length) out.push(`  fix: ${c.fix}`);
  }
  out.push('');
  out.push(
    new Table(
      ['CHECK', 'RESULT', 'EVIDENCE', 'FIX'],
      r.checks.map((c) => [c.check, c.status, evidence(c, 1), c.status === 'FAIL' ? c.short : '']),
      { shorten: { EVIDENCE: 'path' }, keep: ['CHECK'] },
    ).toString(),
  );
  out.push(`verdict: ${r.verdict}`, `next: ${r.next}`, '');
  return out.join('\n');
}
