// Jest's manual mock of the stripe package: no request leaves the test.
const meterEvents = { create: jest.fn(async (params) => ({ object: "billing.meter_event", ...params })) };

module.exports = () => ({
  apiKey: "sk_test_4eC39HqLyjWDarjtT1",
  billing: { meterEvents },
  refunds: { create: jest.fn(async () => ({ id: "re_test" })) },
  webhooks: { constructEvent: jest.fn((body) => JSON.parse(body)) },
});
