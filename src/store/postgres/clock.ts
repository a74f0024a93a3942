/** The server's clock in milliseconds since the epoch (clock_timestamp: the time of the statement, not of the transaction start). */
export const PG_NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
