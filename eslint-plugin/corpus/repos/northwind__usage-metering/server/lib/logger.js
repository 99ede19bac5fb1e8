const crypto = require("crypto");
const pino = require("pino");

const logger = pino({ level: process.env.LOG_LEVEL || "info" });

function withRequestId(req, res, next) {
  req.log = logger.child({ requestId: req.headers["x-request-id"] || crypto.randomUUID(), at: Date.now() });
  next();
}

module.exports = { logger, withRequestId };
