import { Inject, Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { Injector, Logger, Order, Payment, PaymentMethodService, RequestContext, UserInputError } from '@vendure/core';
import Stripe from 'stripe';

import { loggerCtx, STRIPE_PLUGIN_OPTIONS } from './constants';
import { sanitizeMetadata } from './metadata-sanitize';
import { VendureStripeClient } from './stripe-client';
import { getAmountInStripeMinorUnits } from './stripe-utils';
import { stripePaymentMethodHandler } from './stripe.handler';
import { StripePluginOptions } from './types';

@Injectable()
export class StripeService {
    constructor(
        @Inject(STRIPE_PLUGIN_OPTIONS) private options: StripePluginOptions,
        private paymentMethodService: PaymentMethodService,
        private moduleRef: ModuleRef,
    ) {}

    async createPaymentIntent(ctx: RequestContext, order: Order): Promise<string> {
        let customerId: string | undefined;
        const stripe = await this.getStripeClient(ctx, order);
        const amountInMinorUnits = getAmountInStripeMinorUnits(order);
        const additionalParams = await this.options.paymentIntentCreateParams?.(new Injector(this.moduleRef), ctx, order);
        const allMetadata = sanitizeMetadata({ channelToken: ctx.channel.token, orderId: order.id, orderCode: order.code });

        const { client_secret } = await stripe.paymentIntents.create(
            {
                amount: amountInMinorUnits,
                currency: order.currencyCode.toLowerCase(),
                customer: customerId,
                automatic_payment_methods: {
                    enabled: true,
                },
                ...(additionalParams ?? {}),
                metadata: allMetadata,
            },
            { idempotencyKey: `${order.code}_${amountInMinorUnits}` },
        );

        if (!client_secret) {
            Logger.warn(`Payment intent creation for order ${order.code} did not return client secret`, loggerCtx);
            throw Error('Failed to create payment intent');
        }
        return client_secret ?? undefined;
    }

    async createRefund(
        ctx: RequestContext,
        order: Order,
        payment: Payment,
        amount: number,
    ): Promise<Stripe.Response<Stripe.Refund>> {
        const stripe = await this.getStripeClient(ctx, order);
        return stripe.refunds.create({
            payment_intent: payment.transactionId,
            amount,
        });
    }

    /**
     * Get Stripe client based on eligible payment methods for order
     */
    async getStripeClient(ctx: RequestContext, order: Order): Promise<VendureStripeClient> {
        const paymentMethods = await this.paymentMethodService.findAll(ctx, { filter: { enabled: { eq: true } } });
        const stripePaymentMethod = paymentMethods.items.find(pm => pm.handler.code === stripePaymentMethodHandler.code);
        if (!stripePaymentMethod) {
            throw new UserInputError('No enabled Stripe payment method found');
        }
        const apiKey = stripePaymentMethod.handler.args.find(arg => arg.name === 'apiKey')?.value ?? '';
        const webhookSecret = stripePaymentMethod.handler.args.find(arg => arg.name === 'webhookSecret')?.value ?? '';
        return new VendureStripeClient(apiKey, webhookSecret);
    }
}
