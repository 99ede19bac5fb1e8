// Entry point of the Pulumi project (Pulumi.yaml `main: dist/infra/program/index.js`). Pulumi calls the default
// export and publishes what it returns as stack outputs. Build first: `npm run build && pulumi up --stack dev`.
import { defineStack } from "./stack.js";

export default defineStack;
