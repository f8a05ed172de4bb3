// Domain errors of the orders module; the HTTP edge maps them to statuses and codes.

export class InvalidOrderIdError extends Error {
  override readonly name = 'InvalidOrderIdError';
  constructor() {
    super('orderId must be a decimal integer in the int64 range');
  }
}

export class OrderNotFoundError extends Error {
  override readonly name = 'OrderNotFoundError';
  constructor(readonly orderId: string) {
    super(`Order ${orderId} not found`);
  }
}

export class OrderAlreadyShippedError extends Error {
  override readonly name = 'OrderAlreadyShippedError';
  constructor(readonly orderId: string) {
    super(`Order ${orderId} has already shipped`);
  }
}

/** Only a pending order can ship; raised by the admin command's `orders ship`. */
export class OrderNotPendingError extends Error {
  override readonly name = 'OrderNotPendingError';
  constructor(
    readonly orderId: string,
    readonly status: string,
  ) {
    super(`Order ${orderId} is ${status}, not pending`);
  }
}

/**
 * The store is known to be too large for one uncompressed response, and the client accepted no
 * compressed coding: refused before anything is read (lib/core/orders/listing-size.ts).
 */
export class ListingTooLargeUncompressedError extends Error {
  override readonly name = 'ListingTooLargeUncompressedError';
  constructor(
    readonly approximateOrders: number,
    readonly maxOrders: number,
  ) {
    super(`About ${approximateOrders} orders; an uncompressed listing is refused from ${maxOrders}`);
  }
}
