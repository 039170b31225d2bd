import Ajv, { type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifySerializerCompiler } from 'fastify/types/schema';
import fastJsonStringify from 'fast-json-stringify';

// Unknown fields must answer 400, so nothing is silently dropped: every object schema says
// additionalProperties: false and ajv must not strip them first. All errors are reported, so a
// form can mark every bad field at once.
const common: Options = { removeAdditional: false, useDefaults: true, allErrors: true, strict: false };

// Query strings and paths arrive as text and must be coerced ("2" → 2, "a" → ["a"]); JSON bodies
// arrive typed and must not be: "password": 42 is a mistake, not "42".
let textAjv: Ajv | undefined;
let jsonAjv: Ajv | undefined;
const ajvFor = (httpPart: string | undefined) =>
  httpPart === 'body'
    ? (jsonAjv ??= addFormats(new Ajv({ ...common, coerceTypes: false })))
    : (textAjv ??= addFormats(new Ajv({ ...common, coerceTypes: 'array' })));

export interface SchemaCompilers {
  validatorCompiler: FastifySchemaCompiler<object>;
  serializerCompiler: FastifySerializerCompiler<object>;
  /** Generates every validator and serializer not used yet, one at a time between requests; resolves with how many failed. */
  compileRemaining(onError: (error: unknown) => void): Promise<number>;
}

/**
 * One app's request validators (Ajv) and response serializers (fast-json-stringify). Generating the
 * code for some two hundred schemas took a quarter of a second before the server could listen, so each
 * is generated when its route first needs it, and the rest right after the server listens.
 */
export function schemaCompilers(): SchemaCompilers {
  const waiting = new Set<() => unknown>();
  function deferred<T>(compile: () => T): () => T {
    let made: T | undefined;
    const get = () => {
      if (made === undefined) {
        made = compile();
        waiting.delete(get);
      }
      return made;
    };
    waiting.add(get);
    return get;
  }

  return {
    validatorCompiler: ({ schema, httpPart }) => {
      const check = deferred(() => ajvFor(httpPart).compile(schema));
      // Fastify reads a failed check's reasons from the function's `errors`, as Ajv leaves them.
      const validate = Object.assign(
        (data: unknown) => {
          const compiled = check();
          const valid = compiled(data);
          validate.errors = compiled.errors;
          return valid;
        },
        { errors: undefined as ErrorObject[] | null | undefined },
      );
      return validate;
    },
    serializerCompiler: ({ schema }) => {
      const serialize = deferred(() => fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]));
      return (data: unknown) => serialize()(data);
    },
    async compileRemaining(onError) {
      let failed = 0;
      for (const get of [...waiting]) {
        try {
          get();
        } catch (error) {
          failed++;
          waiting.delete(get);
          onError(error);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      return failed;
    },
  };
}
