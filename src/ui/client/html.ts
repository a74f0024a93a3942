// The page's templates: htm on Preact's h, with htm's cache of static elements off. htm gives back
// one and the same vnode for an element with nothing dynamic in it (a table's <thead>, a row's
// <summary>details</summary>, <wbr />) every time its template runs. Preact draws a vnode it drew
// already as a copy, so that first vnode kept, as its parent, the drawing it first appeared in:
// that moment's whole tree, its fleet picture, and rows since removed from the page with their
// listeners (~100 detached session rows, ~200 journal rows: bench/ui-memory.mjs, heap snapshots).
import htmModule from 'htm';
import { h } from 'preact';
import type { ComponentChildren, VNode } from 'preact';

// htm's types say CommonJS (its default export under .default); the bundle takes its ES module,
// whose default is htm itself.
const htm = ('default' in htmModule ? htmModule.default : htmModule) as typeof htmModule.default;

type Html = (strings: TemplateStringsArray, ...values: unknown[]) => VNode;

export const html = htm.bind(function (
  this: number[],
  type: string, // or a component: h takes either
  props: Record<string, unknown>,
  ...children: ComponentChildren[]
) {
  // htm's own switch (its README, "Caching"): the element counts as dynamic, made again each run.
  this[0] = 3;
  return h(type, props, ...children);
}) as Html;
