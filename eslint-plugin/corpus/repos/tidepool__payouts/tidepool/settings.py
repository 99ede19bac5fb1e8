import os

STRIPE_SECRET_KEY = os.environ["STRIPE_SECRET_KEY"]
RABBITMQ_URL = os.environ.get("RABBITMQ_URL", "amqp://guest:guest@localhost/")
