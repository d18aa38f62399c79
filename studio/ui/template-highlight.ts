import { RangeSetBuilder } from '@codemirror/state';
import type { EditorView } from '@codemirror/view';
import { Decoration, type DecorationSet, ViewPlugin, type ViewUpdate } from '@codemirror/view';

// The placeholder syntax of agents/prompt-template.ts, for display only: which placeholder is an error
// is the server's answer (`unknown`), computed by the library.
const TOKEN = /\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g;
const known = Decoration.mark({ class: 'cm-placeholder-known' });
const unknownMark = Decoration.mark({ class: 'cm-placeholder-unknown', attributes: { title: 'names no parameter' } });

/** Highlights `{param}` placeholders; those in `unknown()` as errors. */
export function templateHighlight(unknown: () => Set<string>) {
  const build = (view: EditorView): DecorationSet => {
    const builder = new RangeSetBuilder<Decoration>();
    const text = view.state.doc.toString();
    const bad = unknown();
    for (const match of text.matchAll(TOKEN)) {
      if (!match[1]) continue;
      builder.add(match.index, match.index + match[0].length, bad.has(match[1]) ? unknownMark : known);
    }
    return builder.finish();
  };
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = build(view);
      }
      update(update: ViewUpdate) {
        this.decorations = build(update.view);
      }
    },
    { decorations: (plugin) => plugin.decorations },
  );
}
