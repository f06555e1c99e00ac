"""The live view the host serves to browsers (`wardian web`): the page, its one WebSocket, and
who may use them. aiohttp is imported only here, so a host nobody views never loads it."""
