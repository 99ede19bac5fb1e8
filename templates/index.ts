// chargeguard/templates: public entry point (filled in by its issue).
export {};
