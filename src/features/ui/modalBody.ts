/**
 * What a modal body receives: the opener's props and a way to close with a result. Kept apart from
 * the registry, which imports every body, so that a body can name it without importing the registry.
 */
export interface ModalBodyProps<Props = Record<string, unknown>> {
  props: Props;
  close: (result?: unknown) => void;
}
