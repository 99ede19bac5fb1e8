import { ESLintUtils } from "@typescript-eslint/utils";

/** Extra `meta.docs` fields this plugin's rules declare (read by configs and eslint-doc-generator). */
export interface ChargeguardDocs {
  /** In `configs.recommended` as an error. */
  recommended: boolean;
}

export const docsUrl = (name: string): string =>
  `https://github.com/chargeguard/chargeguard/blob/main/eslint-plugin/docs/rules/${name}.md`;

export const createRule = ESLintUtils.RuleCreator<ChargeguardDocs>(docsUrl);
