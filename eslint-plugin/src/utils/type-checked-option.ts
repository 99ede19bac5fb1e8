import type { JSONSchema4 } from "@typescript-eslint/utils/json-schema";

/** The option every rule with a typed confirmation takes (`configs["recommended-type-checked"]` turns it on). */
export interface TypeCheckedOption {
  typeChecked?: boolean;
}

export const typeCheckedSchema: JSONSchema4 = {
  type: "object",
  properties: {
    typeChecked: {
      type: "boolean",
      description:
        "Confirm with type information (when the parser has a program) that the objects are the Stripe and Service Bus SDK types before reporting; without a program the rule falls back to what the syntax shows.",
    },
  },
  additionalProperties: false,
};
