// eslint-plugin-chargeguard: filled in by the lint issue.
const plugin = { meta: { name: "eslint-plugin-chargeguard", version: "0.1.0" }, rules: {}, configs: {} };
export default plugin;
