/**
 * The request header a client names itself in (`@snapdeck/client/1.2.3`); the gateway logs it.
 * A header of its own rather than User-Agent, which page scripts cannot set in every browser.
 */
export const CLIENT_HEADER = 'X-Client';

/** What the gateway logs of it: a product/version token, or nothing (anything else is dropped). */
export const CLIENT_HEADER_PATTERN = /^[A-Za-z0-9@._\/+-]{1,100}$/;
