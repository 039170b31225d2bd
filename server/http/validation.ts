import Ajv, { type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// Unknown fields must answer 400, so nothing is silently dropped: every object schema says
// additionalProperties: false and ajv must not strip them first. All errors are reported, so a
// form can mark every bad field at once.
const common: Options = { removeAdditional: false, useDefaults: true, allErrors: true, strict: false };

// Query strings and paths arrive as text and must be coerced ("2" → 2, "a" → ["a"]); JSON bodies
// arrive typed and must not be: "password": 42 is a mistake, not "42".
const textAjv = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));
const jsonAjv = addFormats(new Ajv({ ...common, coerceTypes: false }));

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? jsonAjv : textAjv).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
