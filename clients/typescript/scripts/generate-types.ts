// Turns an OpenAPI document into TypeScript types with openapi-typescript (which runs on the
// TypeScript 5 compiler API; this package's own devDependency, see docs/decisions.md).
import openapiTS, { astToString } from "openapi-typescript";

export const HEADER = "// GENERATED from inboxd's /openapi.json by clients/typescript/scripts/generate.ts: do not edit.\n";

export async function generateTypes(doc: unknown): Promise<string> {
  const ast = await openapiTS(doc as any, { alphabetize: false, exportType: false });
  return HEADER + astToString(ast);
}
