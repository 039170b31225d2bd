import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import JSDOMEnvironment from 'jest-environment-jsdom';

/**
 * jsdom with Node's fetch stack, so RTK Query's fetchBaseQuery and msw 2 run as they do in a
 * browser. jsdom has no fetch, and its AbortSignal/Blob/URL are rejected by Node's Request,
 * so the whole family comes from Node together (the same set jest-fixed-jsdom copies).
 */
export default class WardenJsdomEnvironment extends JSDOMEnvironment {
  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    // msw/node is published under the "node"/default conditions only, not "browser".
    this.customExportConditions = [''];

    const win = this.global as unknown as Window & typeof globalThis;
    // Browsers resolve a relative URL against the document; Node's Request refuses it.
    class DocumentRequest extends Request {
      constructor(input: RequestInfo | URL, init?: RequestInit) {
        super(typeof input === 'string' ? new URL(input, win.location.href) : input, init);
      }
    }

    Object.assign(this.global, {
      fetch,
      Request: DocumentRequest,
      Response,
      Headers,
      FormData,
      Blob,
      AbortController,
      AbortSignal,
      URL,
      URLSearchParams,
      TextEncoder,
      TextDecoder,
      TextEncoderStream,
      TextDecoderStream,
      ReadableStream,
      WritableStream,
      TransformStream,
      BroadcastChannel,
      structuredClone,
    });
  }
}
