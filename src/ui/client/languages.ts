// Which of highlight.js' languages (highlight.ts registers them) colours a file, by its name.
const BY_EXTENSION: Record<string, string> = {
  ...{ js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript' },
  ...{ ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript' },
  ...{ py: 'python', go: 'go', rs: 'rust', java: 'java', rb: 'ruby', sql: 'sql', json: 'json', css: 'css' },
  ...{ html: 'xml', htm: 'xml', xml: 'xml', svg: 'xml', sh: 'bash', bash: 'bash', zsh: 'bash' },
  ...{ yml: 'yaml', yaml: 'yaml', md: 'markdown', toml: 'ini', ini: 'ini', c: 'c', h: 'c' },
  ...{ mk: 'makefile', cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp' },
};
const BY_NAME: Record<string, string> = {
  ...{ Makefile: 'makefile', GNUmakefile: 'makefile', Dockerfile: 'dockerfile' },
  ...{ '.bashrc': 'bash', '.zshrc': 'bash', '.profile': 'bash' },
};

export function languageOf(path: string): string | null {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return BY_NAME[name] ?? (dot > 0 ? (BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null) : null);
}
