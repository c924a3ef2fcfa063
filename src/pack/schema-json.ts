/** The text of `rules/pack.schema.json`: one serialisation, shared by the generator and the test that keeps it current. */
import { packSchema } from './schema.js';

export function packSchemaJson(): string {
  return `${JSON.stringify(packSchema, null, 2)}\n`;
}
