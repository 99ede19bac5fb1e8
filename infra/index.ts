// chargeguard/infra: public entry point (filled in by its issue).
export {};
