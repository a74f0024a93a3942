// esbuild plugins of scripts/build.mjs that say what a bundle leaves out.
import { sep } from 'node:path';

// A bundle beside the library (dist/index.js, an ES module) imports it from there rather than
// carrying a second copy of it (~420 KB): the demo's worker and lanes top.
export const libraryBeside = (...importers) => ({
  name: 'library-beside',
  setup(b) {
    const wanted = importers.map((p) => p.split('/').join(sep));
    b.onResolve({ filter: /^\.\.\/\.\.\/index\.js$/ }, (a) =>
      wanted.some((p) => a.importer.includes(p)) ? { path: './index.js', external: true } : undefined,
    );
  },
});

// ink connects to React's devtools only with DEV=true: a stand-in, never the package.
export const noDevtools = {
  name: 'no-devtools',
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'devtools', namespace: 'no-devtools' }));
    b.onLoad({ filter: /.*/, namespace: 'no-devtools' }, () => ({
      contents: 'export default { initialize() {}, connectToDevTools() {} };',
      loader: 'js',
    }));
  },
};
