// The diff view's colours of code (highlight.js: its core and the languages of most repositories):
// a script of its own (dist/ui/highlight.js), loaded the first time a diff is opened, so the page's
// first render does not read it. It sets one global, lanesHighlight(lines, path): each line as
// HTML (escaped by highlight.js), or null for a file whose language it does not know.
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import makefile from 'highlight.js/lib/languages/makefile';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { languageOf } from './languages.js';

const LANGUAGES = {
  dockerfile,
  makefile,
  bash,
  c,
  cpp,
  css,
  go,
  ini,
  java,
  javascript,
  json,
  markdown,
  python,
  ruby,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/**
 * Each line coloured on its own: a diff shows pieces of a file, so a line is read without what came
 * before it (a comment or string opened on a line not shown stays uncoloured, never mis-coloured
 * across the hunk).
 */
function lanesHighlight(lines: string[], path: string): string[] | null {
  const language = languageOf(path);
  if (!language || !hljs.getLanguage(language)) return null;
  return lines.map((line) => hljs.highlight(line, { language, ignoreIllegals: true }).value);
}

(globalThis as { lanesHighlight?: typeof lanesHighlight }).lanesHighlight = lanesHighlight;
