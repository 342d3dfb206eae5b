// The JSON Schema of the definition language, generated from the same step table the validator
// uses, so the two cannot drift apart. Served at GET /v1/scenarios/schema.
import {
  COMMON,
  DEFAULT_RUN_TIMEOUT,
  INPUT_NAME,
  MAX_RUN_TIMEOUT,
  MAX_STEPS,
  SCHEMA_VERSION,
  STEP_ID,
  STEP_KINDS,
  STEP_TYPES,
  type FieldSpec,
} from "./scenario-definition";

/** JSON Schema (draft 2020-12) of schema_version 1, served at GET /v1/scenarios/schema. */
export function definitionJsonSchema(): Record<string, unknown> {
  const fieldSchema = (s: FieldSpec): Record<string, unknown> => {
    const ref = { type: "string", pattern: "^\\$\\{.+\\}$", description: "a ${…} reference" };
    switch (s.kind) {
      case "string":
      case "regex":
      case "search":
        return { type: "string", description: s.description };
      case "boolean":
        return { type: "boolean", description: s.description };
      case "enum":
        return { enum: s.values, description: s.description };
      case "object":
        return { type: "object", additionalProperties: { type: "string" }, description: s.description };
      case "any":
        return { description: s.description };
      default:
        return { anyOf: [{ type: s.kind, minimum: s.min, maximum: s.max }, ref], description: s.description };
    }
  };
  const common = {
    id: { type: "string", pattern: STEP_ID.source, description: COMMON.id!.description },
    name: { type: "string", description: COMMON.name!.description },
    approval: { type: "boolean", description: COMMON.approval!.description },
  };
  const steps = STEP_TYPES.map((type) => {
    const k = STEP_KINDS[type];
    const fields = k.fields as Record<string, FieldSpec>;
    const props: Record<string, unknown> = { type: { const: type }, ...common };
    for (const [name, spec] of Object.entries(fields)) props[name] = fieldSchema(spec);
    return {
      title: type,
      description: `${k.summary}. Needs: ${k.permissions.join(", ") || "nothing"}.`,
      type: "object",
      properties: props,
      required: [
        "type",
        ...Object.entries(fields)
          .filter(([, s]) => s.required)
          .map(([n]) => n),
      ],
      additionalProperties: false,
    };
  });
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "inboxd:scenario-definition:1",
    title: "inboxd scenario definition",
    description: "See docs/scenarios.md. Strings may carry ${inputs.X}, ${secrets.X}, ${steps.ID.path} and ${run.id} references.",
    type: "object",
    required: ["schema_version", "steps"],
    additionalProperties: false,
    properties: {
      schema_version: { const: SCHEMA_VERSION },
      description: { type: "string" },
      timeout_seconds: { type: "integer", minimum: 1, maximum: MAX_RUN_TIMEOUT, default: DEFAULT_RUN_TIMEOUT },
      inputs: {
        type: "object",
        propertyNames: { pattern: INPUT_NAME.source },
        additionalProperties: {
          type: "object",
          required: ["type"],
          additionalProperties: false,
          properties: {
            type: { enum: ["string", "number", "boolean"] },
            required: { type: "boolean" },
            default: {},
            description: { type: "string" },
          },
        },
      },
      steps: { type: "array", minItems: 1, maxItems: MAX_STEPS, items: { oneOf: steps } },
    },
  };
}
