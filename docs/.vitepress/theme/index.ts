// The default theme, with the book's own CSS on top (style.css).
import DefaultTheme from 'vitepress/theme';
import './style.css';

export default DefaultTheme;
