import { readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseToml } from 'smol-toml';
import type { AgentName } from '../core/hook-event.js';

// Whether an agent will actually run the hooks lanes installed, from what that agent itself reads:
// its switches that turn hooks off, and its project trust (an untrusted project's config is
// skipped, by Codex without a word in a headless `codex exec`). Each finding names the file it
// was read from and how to fix it. What an agent keeps where lanes cannot read it is said so.

export interface Activation {
  /** no: a setting stops them; unknown: it depends on something lanes cannot read. */
  runs: 'yes' | 'no' | 'unknown';
  findings: string[];
  fixes: string[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

function readJson(file: string): Obj {
  try {
    return obj(parseJsonc(readFileSync(file, 'utf8'), [], { allowTrailingComma: true }));
  } catch {
    return {};
  }
}

function readToml(file: string): Obj {
  try {
    return obj(parseToml(readFileSync(file, 'utf8')));
  } catch {
    return {};
  }
}

/** `dir` and every directory above it. */
function upwards(dir: string): string[] {
  const out = [dir];
  while (dirname(out[out.length - 1] as string) !== out[out.length - 1])
    out.push(dirname(out[out.length - 1] as string));
  return out;
}

export interface Where {
  /** The repository root when the hooks are installed in its project config; null for the user's config. */
  projectRoot: string | null;
  home: string;
  env: Record<string, string | undefined>;
}

export function activation(agent: AgentName, w: Where): Activation {
  switch (agent) {
    case 'claude-code':
      return claudeCode(w);
    case 'codex':
      return codex(w);
    case 'gemini':
      return gemini(w);
    case 'cursor':
      return {
        runs: 'yes',
        findings: ['Cursor runs .cursor/hooks.json (project and user) with no switch kept in a file lanes can read'],
        fixes: [],
      };
    case 'copilot':
      return copilot(w);
    case 'opencode':
      return {
        runs: 'yes',
        findings: ['OpenCode loads every plugin in .opencode/plugins/ and ~/.config/opencode/plugins/ when it starts'],
        fixes: [],
      };
  }
}

/**
 * Copilot CLI (changelog): repository hooks load only once the folder is trusted (the list is
 * `trusted_folders` in $COPILOT_HOME/config.json, `trustedFolders` in settings.json since user
 * settings moved there); `disableAllHooks` in a settings file turns every hook off.
 */
function copilot(w: Where): Activation {
  const home = w.env['COPILOT_HOME'] || join(w.home, '.copilot');
  const a: Activation = { runs: 'yes', findings: [], fixes: [] };
  const settings = [
    join(home, 'settings.json'),
    join(home, 'config.json'),
    ...(w.projectRoot
      ? [
          join(w.projectRoot, '.github', 'copilot', 'settings.json'),
          join(w.projectRoot, '.github', 'copilot', 'settings.local.json'),
        ]
      : []),
  ];
  for (const file of settings) {
    if (readJson(file)['disableAllHooks'] === true) {
      a.runs = 'no';
      a.findings.push(`"disableAllHooks": true in ${file}`);
      a.fixes.push(`remove "disableAllHooks" from ${file}`);
    }
  }
  if (w.projectRoot) {
    const config = join(home, 'config.json');
    const list = [readJson(config)['trusted_folders'], readJson(join(home, 'settings.json'))['trustedFolders']]
      .flatMap((v) => (Array.isArray(v) ? v : []))
      .filter((p): p is string => typeof p === 'string');
    const root = w.projectRoot;
    const trusted = list.find((p) => root === p || root.startsWith(p.endsWith(sep) ? p : p + sep));
    if (trusted) a.findings.push(`${trusted} is a trusted folder in ${config}`);
    else {
      a.runs = 'no';
      a.findings.push(`${root} is not a trusted folder in ${config}: Copilot CLI does not load its .github/hooks/`);
      a.fixes.push(
        `start \`copilot\` in ${root} once and trust the folder (it is added to "trusted_folders" in ${config})`,
      );
    }
  }
  return a;
}

function claudeCode(w: Where): Activation {
  const files = [
    '/etc/claude-code/managed-settings.json',
    join(w.home, '.claude', 'settings.json'),
    ...(w.projectRoot
      ? [join(w.projectRoot, '.claude', 'settings.json'), join(w.projectRoot, '.claude', 'settings.local.json')]
      : []),
  ];
  const a: Activation = { runs: 'yes', findings: [], fixes: [] };
  for (const file of files) {
    const s = readJson(file);
    if (s['disableAllHooks'] === true) {
      a.runs = 'no';
      a.findings.push(`"disableAllHooks": true in ${file}`);
      a.fixes.push(`remove "disableAllHooks" from ${file}`);
    }
    if (s['allowManagedHooksOnly'] === true && file.startsWith('/etc/')) {
      a.runs = 'no';
      a.findings.push(`"allowManagedHooksOnly": true in ${file}: only managed hooks run`);
      a.fixes.push('ask the administrator to add lanes to the managed hooks');
    }
  }
  return a;
}

function codex(w: Where): Activation {
  const home = w.env['CODEX_HOME'] || join(w.home, '.codex');
  const file = join(home, 'config.toml');
  const config = readToml(file);
  const features = obj(config['features']);
  const a: Activation = {
    runs: 'unknown',
    findings: ['Codex runs non-managed hooks only once approved in its /hooks view, kept where lanes cannot read it'],
    fixes: ['open `/hooks` in Codex once and approve the lanes entries'],
  };
  for (const flag of ['hooks', 'codex_hooks']) {
    if (features[flag] === false) {
      a.runs = 'no';
      a.findings.push(`[features] ${flag} = false in ${file}`);
      a.fixes.push(`remove \`${flag} = false\` from [features] in ${file} (hooks are on by default since Codex 0.124)`);
    }
  }
  if (w.projectRoot) {
    const projects = obj(config['projects']);
    const trusted = upwards(w.projectRoot).find((d) => obj(projects[d])['trust_level'] === 'trusted');
    const untrusted = upwards(w.projectRoot).find((d) => obj(projects[d])['trust_level'] === 'untrusted');
    if (!trusted || untrusted === w.projectRoot) {
      a.runs = 'no';
      a.findings.push(
        `${w.projectRoot} is not a trusted project in ${file}: Codex skips its .codex/ hooks, a headless \`codex exec\` without a word`,
      );
      a.fixes.push(
        `trust it: open Codex there once and accept, or add to ${file}: [projects."${w.projectRoot}"] trust_level = "trusted"`,
      );
    } else a.findings.push(`${trusted} is trusted in ${file}`);
  }
  return a;
}

function gemini(w: Where): Activation {
  const user = join(w.home, '.gemini', 'settings.json');
  const files = [
    '/etc/gemini-cli/system-defaults.json',
    user,
    ...(w.projectRoot ? [join(w.projectRoot, '.gemini', 'settings.json')] : []),
    '/etc/gemini-cli/settings.json',
  ];
  const a: Activation = { runs: 'yes', findings: [], fixes: [] };
  for (const file of files) {
    const s = readJson(file);
    const cfg = obj(s['hooksConfig']);
    if (cfg['enabled'] === false || obj(s['hooks'])['enabled'] === false) {
      a.runs = 'no';
      a.findings.push(`hooks are turned off in ${file}`);
      a.fixes.push(`remove "enabled": false from "hooksConfig" in ${file}`);
    }
    const disabled = Array.isArray(cfg['disabled']) ? cfg['disabled'].filter((n) => /^lanes/.test(String(n))) : [];
    if (disabled.length > 0) {
      a.runs = 'no';
      a.findings.push(`${disabled.join(', ')} disabled in ${file} ("hooksConfig"."disabled")`);
      a.fixes.push(`take them out of "hooksConfig"."disabled" in ${file}`);
    }
  }
  // As Gemini judges it (0.61: `security.folderTrust.enabled ?? true`): on unless explicitly off.
  const folderTrust = obj(obj(readJson(user)['security'])['folderTrust'])['enabled'] !== false;
  if (w.projectRoot && folderTrust) {
    const list = join(w.home, '.gemini', 'trustedFolders.json');
    const rules = readJson(list);
    const trusted = Object.entries(rules).some(([path, level]) => {
      const base = level === 'TRUST_PARENT' ? dirname(path) : path;
      const inside =
        w.projectRoot === base || (w.projectRoot as string).startsWith(base.endsWith(sep) ? base : base + sep);
      return inside && (level === 'TRUST_FOLDER' || level === 'TRUST_PARENT');
    });
    if (!trusted) {
      a.runs = 'no';
      a.findings.push(
        `folder trust is on (Gemini's default, unless "security"."folderTrust"."enabled" is false in ${user}) and ${w.projectRoot} is not trusted in ${list}: Gemini skips its project settings`,
      );
      a.fixes.push(`trust the folder when Gemini asks (or /permissions), which records it in ${list}`);
    }
  }
  return a;
}
