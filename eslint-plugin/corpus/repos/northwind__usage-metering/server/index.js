const express = require("express");
const { withRequestId, logger } = require("./lib/logger");
const webhooks = require("./routes/webhooks");

const app = express();
app.use(withRequestId);
app.use("/webhooks", webhooks);

app.listen(process.env.PORT || 3000, () => logger.info("usage-metering listening"));
