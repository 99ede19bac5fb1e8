/** One finding of `chargeguard scan`, with the ESLint plugin's rule id for the same shape. */
export interface Finding {
  /** `chargeguard/<rule>`, as ESLint reports it for TypeScript. */
  ruleId: string;
  /** Relative to the directory the scan ran in (absolute when outside it). */
  file: string;
  line: number;
  column: number;
  message: string;
  language: string;
}
