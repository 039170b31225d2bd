// What every suite that opens the script page needs: its lazy chunks loaded once (so the first test
// does not pay for them), and the Range geometry CodeMirror measures with, which jsdom does not lay out.
export function prepareScriptEditor() {
  beforeAll(() => Promise.all([import('../../../../src/features/scripts/InstanceScriptPage'), import('../../../../src/features/scripts/ScriptEditor')]), 30_000);
  beforeAll(() => {
    const noRects = () => Object.assign([], { item: () => null }) as unknown as DOMRectList;
    Range.prototype.getClientRects ??= noRects;
    Range.prototype.getBoundingClientRect ??= () => new DOMRect();
  });
}
