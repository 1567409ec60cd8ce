/** SQS consumer of the slow lane: attempts to endpoints that hung or answered slowly. */
import { deliveryLaneConsumer } from '../shared/delivery-consumer.ts';

export const handler = deliveryLaneConsumer('delivery-slow');
