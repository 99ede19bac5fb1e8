// The money model's large size, the postgres cells (`npm run test:all`, the e2e project): money-model-matrix.ts says
// what it runs and how to replay a failure; the other store's cells run beside it in their own file.
import { describeMatrix } from "./money-model-matrix.js";

describeMatrix("postgres");
