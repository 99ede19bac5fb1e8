// chargeguard/sandbox: public entry point (filled in by its issue).
export {};
