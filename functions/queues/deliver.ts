/** SQS consumer of the delivery queue (the main lane): one attempt per job. */
import { deliveryLaneConsumer } from '../shared/delivery-consumer.ts';

export const handler = deliveryLaneConsumer('delivery');
